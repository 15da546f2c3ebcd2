"""Moved to platform/areas/compute/clusters/model.py; re-exported for tests/emulator's imports."""

from workspace_emulator.platform.areas.compute.clusters.model import settle

__all__ = ["settle"]
