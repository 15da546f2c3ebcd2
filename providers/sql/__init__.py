"""SQL warehouses."""
