"""Primitives: each file declares its primitives with all their rules."""
