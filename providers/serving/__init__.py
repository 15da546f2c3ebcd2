"""Model serving: serving endpoints."""
