"""Unity Catalog: credentials, locations, catalogs, schemas, volumes, bindings and grants."""
