"""Streamlit panels that pages place; each draws values that ``skynet_core`` computes."""
