"""tactful's own moderators, one module each.

They are declared as entry points of group ``tactful.moderators`` in tactful's
``pyproject.toml``, like any plug-in's: ``tactful.load(name)`` imports only the
module of the moderator it builds, and importing this package imports none.
"""
