"""How the sandbox writes numbers that the studio writes the same way. STDLIB ONLY, and no import of the
sandbox's other modules: the studio's ``skynet_core.i18n.format_cost`` imports this rule too, without the
reward module (which imports the language module, which imports the studio's i18n)."""

from __future__ import annotations

import math


def cost_decimals(value: float) -> int:
    """How many decimals a cost in US dollars is shown with, everywhere (these feedback lines, traces, Settings,
    the judge's totals: ``skynet_core.i18n.format_cost``): two from $1 up; below, four (per-call costs read
    well so: $0.0020), more for tinier costs so that two significant digits show ($0.00072, $0.000045)."""
    if not math.isfinite(value) or abs(value) >= 1:
        return 2
    if value == 0:
        return 4
    return max(4, 1 - math.floor(math.log10(abs(value))))
