"""Drawing functions for panels that several pages or features use (streamlit allowed; no domain logic)."""
