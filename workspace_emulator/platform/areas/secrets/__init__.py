"""Secret scopes and secrets."""
