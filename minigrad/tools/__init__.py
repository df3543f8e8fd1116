"""The command-line tools behind ``python -m minigrad``: ``cli`` dispatches to ``check``,
``explain``, ``crosscheck`` (with its framework adapters, ``frameworks``) and ``vectors``."""
