"""What the Author page decides, without drawing it: how a scoring run's numbers read, the verdict on a check
and a run, and which example the editor holds. (Which cases the live check runs is the check's own,
``skynet_core.metric.check_cases``; a case typed as JSON is a dataset's, ``skynet_core.datasets.typed_case``.)

Streamlit-free and unit tested (tests/core/views/test_authoring.py); the Author page (``pages/author/``) draws it.
"""

from ._examples import example_shown, python_completions
from ._numbers import RunNumbers, error_headline, run_numbers, side_information
from ._verdict import ScoredResults, ScoredRun, Verdict, contract_verdict

__all__ = [
    "RunNumbers",
    "ScoredResults",
    "ScoredRun",
    "Verdict",
    "contract_verdict",
    "error_headline",
    "example_shown",
    "python_completions",
    "run_numbers",
    "side_information",
]
