"""The one exception the command-line tools share (a leaf module: every command imports it)."""


class UsageError(Exception):
    """Bad input to a command: printed as one line on stderr, exit status 2."""
