"""`python -m skynet_core check|score ...`: see skynet_core.cli."""

from .cli import main

main()
