"""Shipped moderators; importing this package registers them by name."""

from . import _random, builtin, cascade, lexicon, remote  # noqa: F401
