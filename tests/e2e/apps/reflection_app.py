"""A tiny app for the browser test of "Try one reflection step": the bundled example, scored, and the panel.

``REFLECTION_STUB_URL`` is the stub model server; the radio chooses between no reflection model and the stub.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from skynet_core.datasets import EXAMPLE_PATH, load_example  # noqa: E402
from skynet_core.engines.reflection import dataset_instruction  # noqa: E402
from skynet_core.llm import ModelConfig, ModelSettings  # noqa: E402
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases  # noqa: E402
from ui.widgets.reflection import draw_reflection_step  # noqa: E402

METRIC = (EXAMPLE_PATH.parent / "metrics" / "exact_match.py").read_text()


@st.cache_resource
def scored():
    dataset = load_example()
    cases = dataset.for_candidate(dataset.candidates[0])
    return dataset, cases, score_cases(METRIC, cases, RunOptions()).results


dataset, cases, results = scored()
choice = st.radio("Reflection model", ["none", "stub"], horizontal=True)
settings = ModelSettings(
    reflection=ModelConfig("openai/reflect", os.environ["REFLECTION_STUB_URL"]) if choice == "stub" else None
)
draw_reflection_step(METRIC, cases, results, settings, dataset=dataset.source, instruction=dataset_instruction(dataset))
