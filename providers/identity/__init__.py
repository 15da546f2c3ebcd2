"""Principals: service principals and their secrets, groups and their members, users (SCIM),
and the account rule sets naming who holds a service principal's roles."""
