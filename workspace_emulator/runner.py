"""Runs every service of the emulator in one process, on one asyncio loop.

The data directory is locked first (one emulator per directory: data_dir_lock.py), then
ports are bound (so --port 0 works and the JSON line can name them); SIGTERM and SIGINT stop
all servers together and the process exits 0. The JSON line carries a new random
`admin_token` each start, which the administrative API (admin.py) asks for.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import signal
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from workspace_emulator import clock, companions
from workspace_emulator.admin import create_admin_router
from workspace_emulator.data_dir_lock import DataDirLock
from workspace_emulator.edge import ServiceEdge
from workspace_emulator.faults import FaultInjector
from workspace_emulator.identity import IdentityProvider
from workspace_emulator.identity.github_actions import REQUEST_PATH as GITHUB_REQUEST_PATH
from workspace_emulator.identity.managed_identity import APP_SERVICE_PATH, IMDS_PATH
from workspace_emulator.identity.responses import create_identity_app
from workspace_emulator.initial_data import (
    apply_initial_data,
    config_from_initial_data,
    load_initial_data,
    reset_workspace,
    store_config,
    stored_config,
)
from workspace_emulator.options import EmulatorOptions
from workspace_emulator.platform.app import create_platform_app
from workspace_emulator.platform.area import WorkspaceSettings
from workspace_emulator.platform.opening import open_workspace
from workspace_emulator.rate_limit import RateLimiter
from workspace_emulator.request_log import RequestLog
from workspace_emulator.service_date import ServiceDate
from workspace_emulator.storage import Database

logger = logging.getLogger("emulator")

SERVICES = ("platform", "identity", "app", "admin", "flow")
HOST = "127.0.0.1"


@dataclass
class Emulator:
    """The assembled services, ready to serve."""

    apps: dict[str, ServiceEdge]
    info: dict[str, str]
    db: Database


def bind_sockets(port: int) -> dict[str, socket.socket]:
    sockets = {}
    try:
        for offset, service in enumerate(SERVICES):
            # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY on accepted connections only
            # then, and without it keep-alive responses stall on delayed ACKs (~40 ms).
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((HOST, 0 if port == 0 else port + offset))
            sockets[service] = sock
    except OSError:
        for sock in sockets.values():
            sock.close()
        raise
    return sockets


def service_urls(sockets: dict[str, socket.socket]) -> dict[str, str]:
    url = {name: f"http://{HOST}:{sock.getsockname()[1]}" for name, sock in sockets.items()}
    return {
        "base_url": url["platform"],
        "auth_url": url["identity"],
        "app_url": url["app"],
        "admin_url": url["admin"],
        "flow_api_base": url["flow"] + companions.FLOW_PREFIX,
    }


def open_database(options: EmulatorOptions) -> Database:
    if options.in_memory:
        return Database(None)
    return Database.in_directory(options.data_dir, options.fsync)


def assemble(options: EmulatorOptions, urls: dict[str, str]) -> Emulator:
    clock.use(options.clock)
    db = open_database(options)
    initial_data = None
    config = stored_config(db)
    if db.is_new or config is None:
        initial_data = load_initial_data(options.initial_data)
        config = config_from_initial_data(initial_data)
        store_config(db, config)
    identity = IdentityProvider(
        db, config.tenant_id, (config.resource, config.management_resource),
        options.token_lifetime,
    )
    workspace = open_workspace(db, identity, WorkspaceSettings(
        workspace_id=config.workspace_id, metastore_id=config.metastore_id,
        base_url=urls["base_url"], transition_seconds=options.transition_seconds,
        azure_resource_id=config.workspace_resource_id,
        management_resource=config.management_resource,
    ))
    if initial_data is not None:
        apply_initial_data(db, initial_data, config, workspace)

    faults = FaultInjector(options.faults)
    request_log = RequestLog()
    info = {
        **urls,
        "tenant_id": config.tenant_id,
        "client_id": config.client_id,
        "client_secret": config.client_secret,
        "resource": config.resource,
        "management_resource": config.management_resource,
        # The administrative API's token: a new one each start, never stored.
        "admin_token": secrets.token_urlsafe(32),
        "workspace_resource_id": config.workspace_resource_id,
        # The secretless sign-ins' loopback endpoints (identity/managed_identity.py,
        # identity/github_actions.py); their header and token, like the admin token, are
        # new each start and never stored.
        "managed_identity_endpoint": urls["auth_url"] + APP_SERVICE_PATH,
        "managed_identity_header": secrets.token_urlsafe(24),
        "imds_endpoint": urls["auth_url"] + IMDS_PATH,
        "github_oidc_request_url": f"{urls['auth_url']}{GITHUB_REQUEST_PATH}?api-version=2.0",
        "github_oidc_request_token": secrets.token_urlsafe(24),
    }
    stored = config

    def reset() -> None:
        # The file is read again: a reset after editing it applies the edit.
        reset_workspace(db, load_initial_data(options.initial_data), stored, workspace)

    admin = create_admin_router(
        faults, request_log, identity,
        {**urls, "workspace_id": str(config.workspace_id)}, reset,
        admin_token=info["admin_token"],
    )
    platform = create_platform_app(workspace, config.resource, RateLimiter(options.rate_limit),
                                   admin, trust_forwarded_for=options.trust_forwarded_for)
    sample, sample_admin = companions.sample_apps()
    # The flow controller takes its own login tokens only, never the identity provider's
    # (issued for the platform or the management address, not for it).
    flow = companions.flow_app(identity.verify_login)
    identity_app = create_identity_app(identity, info["managed_identity_header"],
                                       info["github_oidc_request_token"])
    raw = {"platform": platform, "identity": identity_app, "app": sample,
           "admin": sample_admin, "flow": flow}

    def client_of(token: str) -> str | None:
        grant = identity.resolve(token)
        return None if grant is None else grant.client_id

    # Dated inside the edge: a fault's drop reaches uvicorn's own send.
    apps = {name: ServiceEdge(ServiceDate(app), name, faults, request_log, client_of)
            for name, app in raw.items()}
    return Emulator(apps=apps, info=info, db=db)


class _Server(uvicorn.Server):
    # The runner handles signals once for all servers.
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _write_info_file(path: Path, line: str) -> None:
    # The line holds the bootstrap secret and the admin token: readable by the user only.
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.unlink(missing_ok=True)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(line + "\n")
    os.replace(temporary, path)


async def serve(options: EmulatorOptions) -> int:
    lock = None if options.in_memory else DataDirLock(options.data_dir)
    try:
        return await _serve(options)
    finally:
        if lock is not None:
            lock.release()


async def _serve(options: EmulatorOptions) -> int:
    sockets = bind_sockets(options.port)
    try:
        emulator = assemble(options, service_urls(sockets))
    except BaseException:
        for sock in sockets.values():
            sock.close()
        raise
    servers = {
        name: _Server(uvicorn.Config(
            app, log_config=None, access_log=False, lifespan="auto", http="h11", ws="none",
            proxy_headers=False,  # nothing stands between the client and the emulator
            date_header=False,  # ServiceDate's, on the emulator's clock
            timeout_graceful_shutdown=3, log_level=options.log_level,
        ))
        for name, app in emulator.apps.items()
    }
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    tasks = [asyncio.create_task(server.serve(sockets=[sockets[name]]), name=name)
             for name, server in servers.items()]
    stopper = asyncio.create_task(stop.wait())
    try:
        while not all(server.started for server in servers.values()):
            if any(task.done() for task in tasks):
                logger.error("a service failed to start")
                return 1
            await asyncio.sleep(0.01)
        line = json.dumps(emulator.info)
        if options.info_file is not None:
            _write_info_file(options.info_file, line)
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
        await asyncio.wait([stopper, *tasks], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for server in servers.values():
            server.should_exit = True
        await asyncio.gather(*tasks, return_exceptions=True)
        stopper.cancel()
        for sock in sockets.values():
            sock.close()
        emulator.db.close()
    return 0
