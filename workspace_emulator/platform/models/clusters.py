"""Moved to platform/areas/clusters/model.py; re-exported for tests/emulator's imports."""

from workspace_emulator.platform.areas.clusters.model import settle

__all__ = ["settle"]
