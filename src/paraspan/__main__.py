"""`python -m paraspan` = the `paraspan` command."""

from __future__ import annotations

import sys

from paraspan.cli.main import main

sys.exit(main())
