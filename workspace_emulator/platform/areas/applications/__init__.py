"""Databricks apps."""
