"""What every part of the stack program says about its configuration."""

from __future__ import annotations

import pulumi

NAMESPACE = "workspace"


class ConfigError(pulumi.RunError):
    """Bad stack configuration: names the key and the reason; fails preview."""


def plain_text_problem(key: str, *, path: bool = False, placeholder: str = "<secret>") -> str:
    """The problem of a secret stored in plain text in the stack's config: `key` without the
    namespace (with `path`, a key path into a list or object: `secrets[0].string_value`)."""
    target = f"--path '{NAMESPACE}:{key}'" if path else f"{NAMESPACE}:{key}"
    return (
        f"{NAMESPACE}:{key}: stored in plain text; set it with `pulumi config set --secret "
        f"{target} {placeholder}`"
    )
