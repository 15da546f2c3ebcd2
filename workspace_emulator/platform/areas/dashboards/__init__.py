"""Dashboards (Lakeview)."""
