"""Clusters, their policies, pools and run state."""
