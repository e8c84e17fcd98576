"""`python -m skynet_core check|score ...`: see skynet_core.cli."""

import gc
import sys

from .heap import built_frozen


def _interrupted() -> str:
    """The line for Ctrl+C in the command's language; in English when the translations cannot load (the signal may
    have come while they did)."""
    try:
        from .cli.options import cli_language
        from .i18n import _, use_language

        with use_language(cli_language(sys.argv[1:])):
            return _("interrupted (Ctrl+C)")
    except BaseException:  # noqa: BLE001  (a half-loaded module, a second Ctrl+C: the English line still ends it)
        return "interrupted (Ctrl+C)"


# The modules are long-lived: no collection scans them while they load (the collector's automatic passes,
# each over a heap the imports keep growing, were 10 ms of a command's start), nor afterwards.
try:
    with built_frozen():
        if sys.argv[1:2] in (["check"], ["score"]) and not {"-h", "--help"} & set(sys.argv):
            # The sandbox's child starts now, while the rest of the command line is imported (about 100 ms)
            # and the data read; the command line asks for the same pool later (it is made once).
            from .scoring.runner.pool import start_one_child_in_background

            start_one_child_in_background()

        from .cli import main
except KeyboardInterrupt:  # Ctrl+C while the command line still loads (before main's own handling): no traceback
    sys.stderr.write(_interrupted() + "\n")
    sys.exit(130)

# A run's objects die young, a batch of cases and its results at a time: collecting the young generation every
# 700 allocations (Python's default) made 120 collections in a 20,000-case run (7 ms), each finding the batch
# still alive. Garbage cycles, if any, are still collected, 10,000 allocations apart.
gc.set_threshold(10_000)
main()
