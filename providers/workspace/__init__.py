"""The workspace tree (folders, notebooks, files), Git folders and credentials, IP access lists,
workspace settings."""
