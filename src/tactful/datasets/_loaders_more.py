"""Data sets beyond the first batch (speech suppression, OpenAI, ParaDetox, TV)."""
