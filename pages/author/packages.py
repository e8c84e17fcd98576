"""The Packages panel of the Author page: what the metric imports, what is found, how to install the rest."""

from __future__ import annotations

import streamlit as st

from skynet_core.display import markdown_text
from skynet_core.i18n import _
from skynet_core.metric.packages import PACKAGES_ENV, missing_command, package_report, package_rows, packages_dir
from skynet_core.metric.source import MetricSource


def draw_packages(source: MetricSource) -> None:
    """Draw the third-party modules ``source`` imports, whether each is found and its version, and the
    command that installs the missing ones into the metric packages folder."""
    report = package_report(source)
    folder = packages_dir()
    if not report:
        st.caption(_("The metric imports only the standard library, its own files and `skynet`."))
    else:
        st.dataframe(package_rows(report), hide_index=True, width="stretch")
        command = missing_command(report)
        if command:
            missing = ", ".join(status.distribution for status in report if not status.found)
            st.warning(
                _(
                    "Not installed: {packages}. Install them for metrics only (the studio's own "
                    "environment is left alone), then check again:"
                ).format(packages=markdown_text(missing)),
                icon=":material/deployed_code:",
            )
            st.code(command, language="bash")
    st.caption(
        _(
            "Metric packages folder: `{folder}` (set `{variable}` to move it). Metric code finds "
            "packages there after the studio's own; nothing is downloaded while a metric runs."
        ).format(folder=folder, variable=PACKAGES_ENV)
    )
