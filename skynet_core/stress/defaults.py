"""The stress test's sizes, kept light: the command line's parser reads them for its help."""

PLAIN_CASES = 2_000
"""A metric that calls no model is stressed on at most this many cases by default (32,000 outputs): more change
the shares little and cost time."""
JUDGE_CALLS = 300
"""A judge metric's default sample keeps the run's ``llm()`` calls near this (at one call a case)."""
DEFAULT_ROUNDS = 5
"""The exploit search's proposals by default."""
MAX_ROUNDS = 50
SEARCH_CASES = 10
"""Cases whose two wrong outputs the exploit search rewrites by default."""
MAX_SEARCH_CASES = 1_000
