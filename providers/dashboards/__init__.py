"""Dashboards: Lakeview dashboards, their draft and their published copy."""
