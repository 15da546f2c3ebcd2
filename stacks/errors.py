"""What every part of the stack program says about its configuration."""

from __future__ import annotations

import pulumi

NAMESPACE = "workspace"


class ConfigError(pulumi.RunError):
    """Bad stack configuration: names the key and the reason; fails preview."""
