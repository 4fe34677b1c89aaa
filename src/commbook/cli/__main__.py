"""`python -m commbook.cli ...` is the `commbook` command."""

import sys

from . import main

sys.exit(main())
