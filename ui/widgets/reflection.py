""" "Try one reflection step": the prompt GEPA's reflection model would read, its proposal, and the diff.

A thin skin over ``skynet_core.engines.reflection`` (and ``engines.export`` for the downloads). Pages call
``draw_reflection_step`` with the metric, the cases and their results, and the model settings. The text
being optimized is the workspace's (``Workspace.drafts.instruction``, per dataset): it stays after a visit to
another page, and the Author and Feedback review pages share it.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from skynet_core.cases import Case
from skynet_core.display import markdown_text
from skynet_core.engines.reflection import DEFAULT_MINIBATCH, ReflectionStep, reflection_step
from skynet_core.i18n import _, with_language
from skynet_core.llm import ModelSettings
from skynet_core.metric.source import MetricSource
from skynet_core.results import CaseResult
from ui.studio import session

S = st.session_state
GEPA_MISSING = "gepa-missing"


def gepa_missing() -> str:
    return _(
        "This needs the gepa package (the engine whose reflection this shows). Install it with "
        "`pip install gepa==0.1.4` in the studio's environment and reload the page."
    )


def draw_reflection_step(
    source: str | MetricSource,
    cases: Sequence[Case],
    results: Sequence[CaseResult],
    settings: ModelSettings,
    *,
    dataset: str,
    instruction: str | None = None,
    key: str = "reflection",
) -> None:
    """The panel: the text to optimize, the minibatch size, a button, then the prompt, proposal and diff.

    ``results`` are the scored cases (lowest scores are reflected on first); ``dataset`` is the source of
    the dataset they come from (the workspace keeps the text per dataset); ``instruction`` is the text the
    candidates answered when the dataset carries one (the bundled example does), the start when none was typed.
    """
    st.caption(
        _(
            "GEPA and DSPy GEPA show the metric's feedback on a few low-scoring cases to a reflection model, "
            "which writes the next version of the instruction. This runs that step once, with GEPA's own "
            "prompt, so you can see whether your feedback would help."
        )
    )
    text_key = f"{key}.instruction"

    def keep_instruction(dataset: str, text_key: str) -> None:
        session().workspace.drafts.set_instruction(dataset, S[text_key])

    workspace = session().workspace
    kept = workspace.drafts.instruction(dataset)
    S[text_key] = kept if kept is not None else instruction or ""
    st.text_area(
        _("The text being optimized (the instruction or prompt the outputs answered)"),
        key=text_key,
        height=140,
        placeholder=_("Paste the instruction your candidates were given."),
        on_change=with_language(keep_instruction),
        args=(dataset, text_key),
    )
    cols = st.columns([1, 3], vertical_alignment="bottom")
    # The size chosen is kept apart from its field: the Feedback review page draws this panel only while it is open.
    S.setdefault(f"{key}.size", S.get(f"{key}.size_chosen", DEFAULT_MINIBATCH))
    size = cols[0].number_input(
        _("Cases to reflect on"),
        min_value=1,
        max_value=10,
        key=f"{key}.size",
        help=_("The lowest-scoring cases, like GEPA's minibatch (3)."),
    )
    S[f"{key}.size_chosen"] = size
    model = settings.reflection.model if settings.reflection is not None else None
    cols[1].caption(
        _("Reflection model: **{model}**").format(model=markdown_text(model))
        if model
        else _("No reflection model is set: the prompt is still shown.")
    )
    if not results:
        st.info(_("Score the cases with the metric first: the step reflects on the lowest-scoring ones."))
        return
    if st.button(
        _("Try one reflection step"),
        key=f"{key}.run",
        type="primary",
        icon=":material/psychology:",
        disabled=not S[text_key].strip(),
    ):
        try:
            with st.spinner(_("Asking the reflection model…") if model else _("Building the prompt…")):
                S[f"{key}.step"] = reflection_step(S[text_key], cases, results, settings, size=int(size))
        except ImportError:
            S[f"{key}.step"] = GEPA_MISSING
        except ValueError as exc:
            S[f"{key}.step"] = str(exc)
    step = S.get(f"{key}.step")
    if isinstance(step, str):
        st.warning(markdown_text(step) if step != GEPA_MISSING else gepa_missing())
    elif isinstance(step, ReflectionStep):
        draw_step(step)
    draw_exports(source, cases, S[text_key], key)


def draw_step(step: ReflectionStep) -> None:
    """The proposal and its diff first (what a person looks for), then the whole prompt."""
    if step.proposed is None:
        st.info(step.message)
    else:
        st.markdown(_("**Proposed text** · from {model}").format(model=markdown_text(step.model or "")))
        st.code(step.proposed, language=None, wrap_lines=True)
        st.markdown(_("**Diff against the current text**"))
        st.code(step.diff or _("The proposal is the same text."), language="diff", wrap_lines=True)
    st.markdown(
        _("**The prompt the engine would send** · cases {ids}, lowest score first").format(
            ids=markdown_text(", ".join(step.case_ids))
        )
    )
    st.code(step.prompt, language=None, wrap_lines=True, height=420)


def draw_exports(source: str | MetricSource, cases: Sequence[Case], instruction: str, key: str) -> None:
    from skynet_core.engines.export import export_for_engine

    st.markdown(
        _(
            "**Use this metric in an engine** · a folder with the metric, these cases, a runnable script and "
            "its requirements"
        )
    )
    cols = st.columns(2)
    engines = ((cols[0], "gepa", _("Download for GEPA")), (cols[1], "dspy", _("Download for DSPy GEPA")))
    for col, engine, label in engines:
        try:
            export = export_for_engine(source, engine, list(cases), instruction=instruction or None)
        except ValueError as exc:
            col.caption(f"{label}: {markdown_text(str(exc))}")
            continue
        col.download_button(
            label,
            data=export.to_zip,  # zipped when clicked, not on every script run of the page
            file_name=f"skynet-{engine}.zip",
            mime="application/zip",
            on_click="ignore",
            icon=":material/download:",
            key=f"{key}.export.{engine}",
        )
