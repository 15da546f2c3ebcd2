"""Lakeflow declarative pipelines (formerly Delta Live Tables) and the update action."""
