"""Emulator of the flow controller (an Apache NiFi-like REST API).

Contract with the emulator core::

    create_app(verify_login: Callable[[str, str], bool]) -> ASGIApp

The app serves paths relative to its mount point; the core mounts it at ``PREFIX``
(``"/nifi-api"``), e.g. ``Mount(PREFIX, app=create_app(...))``, so that
``{flow_api_base} = http://127.0.0.1:PORT/nifi-api``:

* ``POST /access/token`` (form ``username``, ``password``): 201 with a JWT-shaped token as
  ``text/plain`` when ``verify_login(username, password)`` is true; the app remembers it for
  12 hours. 400 ``The username and password must be specified.`` when either is blank and
  400 ``The supplied username and password are not valid.`` when the check fails (NiFi's
  statuses); 415 for a body that is not form-encoded.
* ``GET /process-groups/root`` (and ``/process-groups/<root id>``): the root process group,
  named "NiFi Flow", as a ProcessGroupEntity. Needs ``Authorization: Bearer <token>`` with a
  token this app's login issued: tokens are issued for the flow controller alone, so one the
  identity provider issued (for the platform or any other resource) is refused like an
  unknown token. Otherwise 401 ``text/plain``: body
  ``Unauthorized`` without credentials; with a bad token a ``WWW-Authenticate: Bearer
  error="invalid_token", ...`` challenge, and the body ``Session Expired`` if it was a login
  token that has expired.

Optional keyword arguments: ``clock`` (epoch seconds, default ``time.time``) for token expiry
and status timestamps, and ``token_lifetime_seconds``.
"""

from workspace_emulator.flow.app import create_app

PREFIX = "/nifi-api"

__all__ = ["PREFIX", "create_app"]
