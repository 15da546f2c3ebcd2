"""Unity Catalog."""
