"""TV synopses (placeholder)."""
