"""Skynet Metric Studio's logic: the metric contract, the isolated runner, datasets, the reward.

Pages, the CLI and tests import from here. Nothing in this package imports streamlit.
"""
