"""Who may do what on an object: the access-control lists of workspace objects."""
