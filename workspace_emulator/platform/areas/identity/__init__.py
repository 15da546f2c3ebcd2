"""Principals: SCIM users, groups and service principals, their OAuth secrets, personal
access tokens, and the account rule sets naming who holds a principal's roles."""
