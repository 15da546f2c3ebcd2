"""Pipelines (Lakeflow declarative pipelines)."""
