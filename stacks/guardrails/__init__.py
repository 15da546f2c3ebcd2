"""Guardrails as code: the workspace's rules as a Pulumi policy pack (docs/guardrails.md)."""
