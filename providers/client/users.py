"""The SCIM users area (`client.users`): its calls live beside the groups' (groups.py)."""

from providers.client.groups import UsersApi

AREA = UsersApi
