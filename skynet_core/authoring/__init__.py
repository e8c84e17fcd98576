"""What the Author page decides, without drawing it: which cases the live check runs and why, one case
typed as JSON, where a wrong return value is fixed, how a scoring run's numbers read, and which
example the editor holds.

Streamlit-free and unit tested (tests/core/test_authoring.py); the Author page (``pages/author/``) draws it.
"""

from ..score_lines import return_line  # where a wrong return value is fixed
from ._check_cases import MAX_PINS, PINNED, SAMPLED, SETTING_CHECK_PINS, CheckCases, check_cases, pins_for, with_pins
from ._examples import example_shown, python_completions
from ._numbers import RunNumbers, error_headline, run_numbers, side_information
from ._typed_case import USER_CASES_FILE, CaseJsonError, case_json, parse_case, save_user_case
from ._verdict import ScoredResults, ScoredRun, Verdict, contract_verdict

__all__ = [
    "CaseJsonError",
    "CheckCases",
    "MAX_PINS",
    "PINNED",
    "RunNumbers",
    "SAMPLED",
    "SETTING_CHECK_PINS",
    "ScoredResults",
    "ScoredRun",
    "USER_CASES_FILE",
    "Verdict",
    "case_json",
    "check_cases",
    "contract_verdict",
    "error_headline",
    "example_shown",
    "parse_case",
    "pins_for",
    "python_completions",
    "return_line",
    "run_numbers",
    "save_user_case",
    "side_information",
    "with_pins",
]
