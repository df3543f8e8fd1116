"""``python -m minigrad``: a short demonstration (the ``check`` command comes with the oracle)."""

from minigrad.cli import main

raise SystemExit(main())
