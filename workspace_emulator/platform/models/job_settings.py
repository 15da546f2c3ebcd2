"""Moved to platform/areas/jobs/jobs/job_settings.py; re-exported for tests/emulator's imports."""

from workspace_emulator.platform.areas.jobs.jobs.job_settings import to_public_form

__all__ = ["to_public_form"]
