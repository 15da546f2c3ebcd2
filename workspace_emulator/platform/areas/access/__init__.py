"""Who may do what on an object: the permissions API of workspace objects."""
