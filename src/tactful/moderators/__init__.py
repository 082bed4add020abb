"""Shipped moderators; importing this package registers them by name."""
