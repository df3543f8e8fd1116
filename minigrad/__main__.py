"""``python -m minigrad COMMAND``: check, explain, crosscheck, vectors, demo
(``minigrad.tools.cli``)."""

from minigrad.tools.cli import main

raise SystemExit(main())
