"""The kind framework: declarations, the lifecycle every kind's provider follows, the registry of
kinds, the provider host, and the helpers every domain shares."""
