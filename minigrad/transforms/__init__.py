"""Transforms: each is a Trace, a Tracer and one process_primitive, plus its entry point."""
