"""The root process group of an empty flow, shaped like NiFi's ProcessGroupEntity.

Null fields are left out, as NiFi's JSON writer does; the root group has no parent.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

ROOT_GROUP_NAME = "NiFi Flow"

# Component counts; all zero because the emulated flow is empty.
_COMPONENT_COUNTS = (
    "runningCount",
    "stoppedCount",
    "invalidCount",
    "disabledCount",
    "activeRemotePortCount",
    "inactiveRemotePortCount",
    "upToDateCount",
    "locallyModifiedCount",
    "staleCount",
    "locallyModifiedAndStaleCount",
    "syncFailureCount",
    "localInputPortCount",
    "localOutputPortCount",
    "publicInputPortCount",
    "publicOutputPortCount",
    "inputPortCount",
    "outputPortCount",
)


def root_process_group_entity(group_id: str, uri: str, now_epoch_seconds: float) -> dict[str, Any]:
    counts = dict.fromkeys(_COMPONENT_COUNTS, 0)
    position = {"x": 0.0, "y": 0.0}
    return {
        "revision": {"version": 0},
        "id": group_id,
        "uri": uri,
        "position": position,
        "permissions": {"canRead": True, "canWrite": True},
        "bulletins": [],
        "component": {
            "id": group_id,
            "position": position,
            "name": ROOT_GROUP_NAME,
            "comments": "",
            "flowfileConcurrency": "UNBOUNDED",
            "flowfileOutboundPolicy": "STREAM_WHEN_AVAILABLE",
            "defaultFlowFileExpiration": "0 sec",
            "defaultBackPressureObjectThreshold": 10000,
            "defaultBackPressureDataSizeThreshold": "1 GB",
            "executionEngine": "STANDARD",
            "maxConcurrentTasks": 1,
            "statelessFlowTimeout": "1 min",
            "statelessGroupScheduledState": "STOPPED",
            **counts,
        },
        "status": _status(group_id, now_epoch_seconds),
        **counts,
    }


def _status(group_id: str, now_epoch_seconds: float) -> dict[str, Any]:
    refreshed = datetime.fromtimestamp(now_epoch_seconds, UTC).strftime("%H:%M:%S UTC")
    return {
        "id": group_id,
        "name": ROOT_GROUP_NAME,
        "statsLastRefreshed": refreshed,
        "aggregateSnapshot": {
            "id": group_id,
            "name": ROOT_GROUP_NAME,
            "flowFilesIn": 0,
            "bytesIn": 0,
            "input": "0 (0 bytes)",
            "flowFilesQueued": 0,
            "bytesQueued": 0,
            "queued": "0 (0 bytes)",
            "queuedCount": "0",
            "queuedSize": "0 bytes",
            "bytesRead": 0,
            "read": "0 bytes",
            "bytesWritten": 0,
            "written": "0 bytes",
            "flowFilesOut": 0,
            "bytesOut": 0,
            "output": "0 (0 bytes)",
            "flowFilesTransferred": 0,
            "bytesTransferred": 0,
            "transferred": "0 (0 bytes)",
            "bytesReceived": 0,
            "flowFilesReceived": 0,
            "received": "0 (0 bytes)",
            "bytesSent": 0,
            "flowFilesSent": 0,
            "sent": "0 (0 bytes)",
            "activeThreadCount": 0,
            "terminatedThreadCount": 0,
        },
    }
