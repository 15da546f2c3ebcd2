"""The workspace tree, Git folders and credentials, IP access lists, workspace settings."""
