"""`python -m skynet_core check|score ...`: see skynet_core.cli."""

import sys

from .heap import built_frozen

# The modules are long-lived: no collection scans them while they load (the collector's automatic passes,
# each over a heap the imports keep growing, were 10 ms of a command's start), nor afterwards.
with built_frozen():
    if sys.argv[1:2] in (["check"], ["score"]) and not {"-h", "--help"} & set(sys.argv):
        # The sandbox's child starts now, while the rest of the command line is imported (about 100 ms)
        # and the data read; the command line asks for the same pool later (it is made once).
        from .runner.pool import start_one_child_in_background

        start_one_child_in_background()

    from .cli import main

main()
