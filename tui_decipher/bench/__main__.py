"""`python -m tui_decipher.bench job ...`: one bench job in its own process (see `runner.child_main`)."""

import sys

from tui_decipher.bench.runner import child_main

sys.exit(child_main())
