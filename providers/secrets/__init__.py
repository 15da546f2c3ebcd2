"""Secret scopes, secrets and their ACLs."""
