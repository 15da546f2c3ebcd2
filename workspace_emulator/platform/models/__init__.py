"""Models of the areas not yet moved into their packages (platform/areas/)."""
