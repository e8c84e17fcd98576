"""A deep link to /runs on a freshly started server runs this file: it hands the request to the router (why this
file exists: ui/__init__.py)."""

from ui import studio

studio.hand_over_to_router()
