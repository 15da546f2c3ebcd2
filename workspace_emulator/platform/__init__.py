"""The platform service: the workspace REST API (app.py builds it)."""
