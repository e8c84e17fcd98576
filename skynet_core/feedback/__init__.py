"""Feedback review: find the feedback that will not help the engines, and a metric that cannot rank.

GEPA, DSPy GEPA and Auto read each case's feedback to write the next version of the
artifact, so feedback should say what was wrong and what the right output looks like
(the contract's "useful feedback" table). This module judges a scored run, a sequence of
``(Case, CaseResult)`` pairs, in four ways:

- :func:`review` applies the feedback rules (:func:`rules`) to every case whose result
  is ``ok``; errors, timeouts and invalid returns have no feedback to judge and are only
  counted by :func:`health`. Each rule flags a case at most once, with a plain-words
  suggestion of what the feedback should add.
- :func:`health` judges the metric as a whole: saturation, too few distinct scores,
  named scores that move together, failed cases, possible reward hacks.
- :func:`probe_cases` builds cases with trivial outputs; once they are scored,
  :func:`judge_probes` flags a metric that rewards them.
- :class:`skynet_core.store.marks.MarkStore` keeps people's "useful" / "weak" marks in SQLite, and
  :func:`export_rows` joins results, rules broken and marks for CSV / JSON Lines export.

Conventions shared by the rules and the health checks:

- A run's *score range* runs from the lower of 0 and its lowest ``ok`` score to the
  higher of 1 and its highest, so a 0-to-1 metric is judged on 0..1 even when every case
  scored 0, and a 0-to-10 metric on its own scale. The *top* score is the range's upper
  end, the *lowest* its lower end. Named scores get the same range, one per name.
- Case ids must be unique within a run (one candidate at a time); a repeated id raises
  ``ValueError``.
- Text comparisons work on lower-cased word tokens with a light stemmer ("charges"
  matches "charge"), ignoring punctuation and common function words; outputs that are
  JSON strings are parsed when they can be.

One idea a module: ``text`` (words, stems, comparing an output with the expected value),
``rules``, ``health``, ``probes``, ``grading`` and ``marks``. Import from the package.
"""

from .grading import GRADE_INSTRUCTIONS, Grade, grade_feedback, grade_prompt, parse_grade
from .health import HealthFinding, Severity, health
from .marks import Mark, MarkValue, export_rows, rows_csv, rows_jsonl
from .probes import PROBE_KINDS, judge_probes, parse_probe_id, probe_cases
from .rules import Flag, Review, Rule, Thresholds, review, rules
from .text import GENERIC_PHRASES, NAMED_SCORE_SYNONYMS

__all__ = [
    "GENERIC_PHRASES",
    "NAMED_SCORE_SYNONYMS",
    "PROBE_KINDS",
    "GRADE_INSTRUCTIONS",
    "Flag",
    "Grade",
    "HealthFinding",
    "Mark",
    "MarkValue",
    "Review",
    "Rule",
    "Severity",
    "Thresholds",
    "export_rows",
    "grade_feedback",
    "grade_prompt",
    "health",
    "judge_probes",
    "parse_grade",
    "parse_probe_id",
    "probe_cases",
    "review",
    "rows_csv",
    "rows_jsonl",
    "rules",
]
