"""A deep link to /stress on a freshly started server runs this file (Streamlit's pages-folder mode, see app.py):
it hands the request to the router."""

from ui import studio

studio.hand_over_to_router()
