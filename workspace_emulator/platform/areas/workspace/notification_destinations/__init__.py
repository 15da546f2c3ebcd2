"""Notification destinations: e-mail, Slack, webhook, PagerDuty and Microsoft Teams, their
write-only fields stored hashed and shown as `*_set` (model.py), and their routes
(routes.py)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, Mount
from workspace_emulator.platform.areas.workspace.notification_destinations import routes
from workspace_emulator.platform.areas.workspace.notification_destinations.model import (
    TABLES,
    NotificationDestinations,
)
from workspace_emulator.platform.fidelity import stateful

AREA = Area(
    name="notification_destinations",
    open=lambda context: NotificationDestinations(context.db),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=93,
    support={
        "GET /notification-destinations": stateful("id, display_name, destination_type; "
                                                   "one page"),
        "POST /notification-destinations": stateful(
            "admins; display_name and one config (email, slack, generic_webhook, pagerduty, "
            "microsoft_teams) checked; write-only fields stored hashed"),
        "GET /notification-destinations/{destination_id}": stateful(
            "e-mail addresses shown; every other field as <field>_set only"),
        "PATCH /notification-destinations/{destination_id}": stateful(
            "admins; display_name; fields of the same type replace the stored ones (the "
            "type never changes)"),
        "DELETE /notification-destinations/{destination_id}": stateful("admins"),
    },
)
