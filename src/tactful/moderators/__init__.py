"""Shipped moderators; importing this package registers them by name."""

from . import _random, lexicon  # noqa: F401
