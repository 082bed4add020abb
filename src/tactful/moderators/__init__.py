"""Shipped moderators; importing this package registers them by name."""

from . import _random, builtin, lexicon, remote  # noqa: F401
