"""Streamlit panels that pages place.

Each takes explicit values, draws what ``skynet_core`` computes, and keeps its widgets' state under its ``key``.
"""
