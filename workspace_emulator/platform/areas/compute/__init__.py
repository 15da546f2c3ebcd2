"""Clusters, their policies and pools."""
