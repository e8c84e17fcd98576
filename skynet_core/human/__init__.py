"""Is the metric right? Human scores, the metric's agreement with them, and the disagreements that matter.

A person scores cases (:class:`HumanScore`, kept by ``skynet_core.store.human`` or read from a file with
:func:`read_labels`); a run's results are joined to those scores (:func:`pair_results`) and measured
(:func:`measure_agreement`), giving one :class:`Agreement`: Spearman ρ, Kendall τ-b, Pearson r, the
mean gap, Cohen's κ at a pass threshold with the confusion counts, every figure an :class:`Estimate`
with its bootstrap interval, and the disagreements with false passes first. For example::

    from skynet_core.human import HumanScores, measure_agreement, pair_results

    humans = HumanScores().values(dataset.source, candidate)
    report = measure_agreement(pair_results(results, humans), threshold=0.5)
    report.kappa.value, report.kappa.low, report.kappa.high

The rest: a dataset's labels as a page reads them (:class:`HumanLabels`, the data file's column as the
rater :data:`FILE_RATER`), the labelling order (:func:`labelling_order`, :func:`progress`), the label scales
(:class:`LabelScale`), two raters' agreement (:func:`rater_agreement`), the feedback rules against
the useful/weak marks (:func:`rules_against_marks`), agreement kept per run and compared across
versions (``skynet_core.store.human``, :func:`compare_agreement`), the figures (:func:`agreement_scatter`,
:func:`confusion_figure`), the words (:func:`agreement_lines`) and the command line's part (``cli``).

Each name is imported from its module on first use, so that the command line loads scipy and plotly
only when it computes agreement.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_face

if TYPE_CHECKING:
    from .charts import agreement_scatter, confusion_figure, confusion_table
    from .estimate import Estimate, Undefined
    from .files import KnownCases, LabelFile, labels_csv, labels_from_bytes, labels_jsonl, read_labels, write_labels
    from .human_score import (
        FAIL_VALUE,
        PASS_VALUE,
        HumanScore,
        LabelError,
        LabelImport,
        human_values,
        parse_human_value,
        scores_from_cases,
    )
    from .interrater import RaterAgreement, RaterDisagreement, rater_agreement
    from .labels import FILE_RATER, HumanLabels, ImportedLabels, rater_label
    from .order import LabelOrder, Progress, labelling_order, next_unlabelled, progress, step
    from .pairing import LabelledCase, Pairing, PairingBuilder, pair_results
    from .report import DEFAULT_THRESHOLD, FEW_CASES, FIGURES, Agreement, Confusion, Disagreement, by_gap
    from .rule_marks import RuleAgreement, rules_against_marks
    from .scales import LabelScale, ScaleKind
    from .settings import (
        RATER_SETTING,
        THRESHOLD_SETTING,
        default_rater,
        pass_threshold,
        rater_name,
        set_pass_threshold,
        set_rater_name,
    )
    from .statistics import measure_agreement, spearman_estimate
    from .tables import (
        comparison_table,
        disagreements_table,
        figures_table,
        moves_table,
        named_table,
        raters_table,
        rules_table,
    )
    from .text import (
        agreement_lines,
        agreement_summary,
        estimate_text,
        few_cases_warning,
        figure_label,
        figure_meaning,
    )
    from .versions import (
        AgreementComparison,
        CaseMove,
        Movement,
        agreement_of,
        compare_agreement,
        record_run_agreement,
    )

__getattr__ = lazy_face(__name__, __file__)


__all__ = [
    "DEFAULT_THRESHOLD",
    "FAIL_VALUE",
    "FEW_CASES",
    "FIGURES",
    "FILE_RATER",
    "PASS_VALUE",
    "RATER_SETTING",
    "THRESHOLD_SETTING",
    "Agreement",
    "agreement_lines",
    "agreement_scatter",
    "agreement_summary",
    "agreement_of",
    "AgreementComparison",
    "by_gap",
    "CaseMove",
    "compare_agreement",
    "comparison_table",
    "Confusion",
    "confusion_figure",
    "confusion_table",
    "default_rater",
    "Disagreement",
    "disagreements_table",
    "Estimate",
    "estimate_text",
    "few_cases_warning",
    "figure_label",
    "figure_meaning",
    "figures_table",
    "human_values",
    "HumanLabels",
    "HumanScore",
    "ImportedLabels",
    "KnownCases",
    "LabelError",
    "LabelFile",
    "LabelImport",
    "LabelledCase",
    "labelling_order",
    "LabelOrder",
    "labels_csv",
    "labels_from_bytes",
    "labels_jsonl",
    "LabelScale",
    "measure_agreement",
    "Movement",
    "moves_table",
    "named_table",
    "next_unlabelled",
    "pair_results",
    "Pairing",
    "PairingBuilder",
    "parse_human_value",
    "pass_threshold",
    "progress",
    "Progress",
    "rater_agreement",
    "rater_name",
    "rater_label",
    "RaterAgreement",
    "RaterDisagreement",
    "raters_table",
    "read_labels",
    "record_run_agreement",
    "RuleAgreement",
    "rules_against_marks",
    "rules_table",
    "scores_from_cases",
    "ScaleKind",
    "set_pass_threshold",
    "set_rater_name",
    "spearman_estimate",
    "step",
    "Undefined",
    "write_labels",
]
