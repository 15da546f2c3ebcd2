"""Model serving endpoints."""
