"""Principals: service principals and their secrets, groups and their members, users (SCIM)."""
