"""A collapsed panel whose content is drawn only while it is open (Streamlit's lazy expander).

A page draws everything its script run sends, folded away or not: the Feedback review page's Thresholds (fourteen
number fields), its feedback-value experiment and its reflection step were a quarter of the browser's work in the
page's first draw, for panels nobody had opened. Opening one reruns the page, which then draws its content.

A widget's value is forgotten while its panel is closed (Streamlit drops the state of widgets a run does not draw),
so what a panel's fields hold must be kept elsewhere (the workspace, or a key of its own) and given back to them
when it opens again, as the thresholds and the experiment's form do.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator


def lazy_expander(label: str, *, key: str, icon: str | None = None) -> DeltaGenerator | None:
    """A collapsed expander keyed ``key``: the container to draw into while it is open, else ``None``."""
    panel = st.expander(label, key=key, icon=icon, on_change="rerun")
    return panel if panel.open else None
