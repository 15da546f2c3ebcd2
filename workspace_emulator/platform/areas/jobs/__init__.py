"""Jobs, their runs and permissions."""
