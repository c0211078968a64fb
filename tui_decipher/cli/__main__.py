"""`python -m tui_decipher.cli`: the same as `decipher`."""

from . import main

main()
