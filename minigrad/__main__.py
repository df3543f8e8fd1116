"""``python -m minigrad COMMAND``: check, explain, crosscheck, vectors, demo (``minigrad.cli``)."""

from minigrad.cli import main

raise SystemExit(main())
