"""Jobs, their access control and their runs.

A run moves PENDING -> RUNNING -> TERMINATED over the transition time (half of it
pending, half running), computed from its start time when read. A run whose
python_params contain "--fail" ends FAILED: that is the documented failure trigger.
"""

from __future__ import annotations

import base64
import binascii
import sqlite3
from typing import Any

from emulator import clock
from emulator.errors import InvalidParameter, NotFound, PermissionDenied
from emulator.platform.models import job_permissions, job_settings
from emulator.platform.models.directory import Caller, Directory
from emulator.platform.models.job_permissions import RANK, AclEntry
from emulator.storage import Database, from_json, to_json

JOB_ID_START = 1_000_000_000_001
RUN_ID_START = 2_000_000_000_001
FAILURE_TRIGGER = "--fail"
MAX_IDEMPOTENCY_TOKEN = 64
DEFAULT_PAGE = 20
MAX_PAGE = 100
RUN_PARAMETER_KINDS = ("python_params", "jar_params", "spark_submit_params", "notebook_params",
                       "python_named_params", "job_parameters", "sql_params", "dbt_commands")


def _page_token(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode()


def _offset_from_token(token: str) -> int:
    try:
        kind, _, value = base64.urlsafe_b64decode(token.encode()).decode().partition(":")
        if kind != "offset" or not value.isdigit():
            raise ValueError(token)
        return int(value)
    except (ValueError, binascii.Error, UnicodeError) as exc:
        raise InvalidParameter(f"Invalid page_token '{token}'") from exc


class Jobs:
    def __init__(
        self, db: Database, directory: Directory, transition_seconds: float,
        base_url: str, workspace_id: int,
    ) -> None:
        self._db = db
        self._directory = directory
        self._transition_ms = int(transition_seconds * 1000)
        self._base_url = base_url
        self._workspace_id = workspace_id

    # storage

    def _load(self, conn: sqlite3.Connection, job_id: int) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        if row is None:
            raise NotFound(f"Job {job_id} does not exist.")
        return from_json(row["doc"])

    def _save(self, conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
        conn.execute(
            "INSERT INTO jobs (job_id, name_lower, doc) VALUES (?, ?, ?) ON CONFLICT(job_id)"
            " DO UPDATE SET name_lower = excluded.name_lower, doc = excluded.doc",
            (doc["job_id"], doc["settings"]["name"].lower(), to_json(doc)),
        )

    def _authorised(
        self, conn: sqlite3.Connection, job_id: int, caller: Caller, needed: str
    ) -> dict[str, Any]:
        doc = self._load(conn, job_id)
        if job_permissions.effective_rank(self._acl(doc), caller) < RANK[needed]:
            raise PermissionDenied(
                f"{caller.application_id} does not have {needed} permission on job {job_id}."
            )
        return doc

    @staticmethod
    def _acl(doc: dict[str, Any]) -> list[AclEntry]:
        return [AclEntry.from_doc(entry) for entry in doc["acl"]]

    def _render(self, doc: dict[str, Any]) -> dict[str, Any]:
        return {
            "job_id": doc["job_id"],
            "creator_user_name": doc["creator_user_name"],
            "run_as_user_name": doc["creator_user_name"],
            "created_time": doc["created_time"],
            "settings": job_settings.render(doc["settings"], doc["settings_form"]),
        }

    # jobs

    def create(self, settings: Any, access_control_list: Any, caller: Caller) -> int:
        public, form = job_settings.normalise(settings)
        owner = AclEntry("service_principal", caller.application_id, job_permissions.OWNER)
        acl = [owner]
        if access_control_list is not None:
            requested = job_permissions.parse_request(access_control_list, self._directory)
            acl = job_permissions.patched(acl, requested)
        with self._db.write() as conn:
            job_id = self._db.next_value(conn, "job_id", JOB_ID_START)
            self._save(conn, {
                "job_id": job_id, "settings": public, "settings_form": form,
                "created_time": clock.now_ms(), "creator_user_name": caller.application_id,
                "acl": [entry.to_doc() for entry in acl],
            })
        return job_id

    def get(self, job_id: int, caller: Caller) -> dict[str, Any]:
        with self._db.read() as conn:
            return self._render(self._authorised(conn, job_id, caller, "CAN_VIEW"))

    def page(
        self, caller: Caller, limit: int | None = None, offset: int | None = None,
        name: str | None = None, page_token: str | None = None,
    ) -> dict[str, Any]:
        limit = DEFAULT_PAGE if limit is None or limit == 0 else limit
        if not 1 <= limit <= MAX_PAGE:
            raise InvalidParameter(f"limit must be between 1 and {MAX_PAGE}, got {limit}")
        if page_token:
            offset = _offset_from_token(page_token)
        offset = offset or 0
        if offset < 0:
            raise InvalidParameter(f"offset must not be negative, got {offset}")
        where, params = ("WHERE name_lower = ?", [name.lower()]) if name else ("", [])
        with self._db.read() as conn:
            if caller.is_admin:
                rows = conn.execute(
                    f"SELECT doc FROM jobs {where} ORDER BY job_id DESC LIMIT ? OFFSET ?",
                    [*params, limit + 1, offset],
                ).fetchall()
                docs = [from_json(row["doc"]) for row in rows]
            else:
                rows = conn.execute(f"SELECT doc FROM jobs {where} ORDER BY job_id DESC",
                                    params).fetchall()
                visible = [
                    doc for doc in (from_json(row["doc"]) for row in rows)
                    if job_permissions.effective_rank(self._acl(doc), caller) >= RANK["CAN_VIEW"]
                ]
                docs = visible[offset:offset + limit + 1]
        has_more = len(docs) > limit
        result: dict[str, Any] = {"jobs": [self._render(d) for d in docs[:limit]],
                                  "has_more": has_more}
        if has_more:
            result["next_page_token"] = _page_token(offset + limit)
        if offset > 0:
            result["prev_page_token"] = _page_token(max(0, offset - limit))
        return result

    def reset(self, job_id: int, new_settings: Any, caller: Caller) -> None:
        public, form = job_settings.normalise(new_settings)
        with self._db.write() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_MANAGE")
            doc.update(settings=public, settings_form=form)
            self._save(conn, doc)

    def update(
        self, job_id: int, new_settings: Any, fields_to_remove: Any, caller: Caller
    ) -> None:
        """Partial update: top-level fields of new_settings replace, fields_to_remove go."""
        if new_settings is not None and not isinstance(new_settings, dict):
            raise InvalidParameter("new_settings must be an object")
        if fields_to_remove is not None and not (
            isinstance(fields_to_remove, list) and all(isinstance(f, str) for f in fields_to_remove)
        ):
            raise InvalidParameter("fields_to_remove must be a list of field names")
        with self._db.write() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_MANAGE")
            current = job_settings.render(doc["settings"], doc["settings_form"])
            for field in fields_to_remove or []:
                current.pop(field, None)
            current.update(new_settings or {})
            public, form = job_settings.normalise(current)
            doc.update(settings=public, settings_form=form)
            self._save(conn, doc)

    def delete(self, job_id: int, caller: Caller) -> None:
        with self._db.write() as conn:
            self._authorised(conn, job_id, caller, "CAN_MANAGE")
            conn.execute("DELETE FROM jobs WHERE job_id = ?", (job_id,))

    # permissions

    def permissions(self, job_id: int, caller: Caller) -> dict[str, Any]:
        with self._db.read() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_VIEW")
        return job_permissions.render(job_id, self._acl(doc), self._directory)

    def change_permissions(
        self, job_id: int, access_control_list: Any, caller: Caller, replace_all: bool
    ) -> dict[str, Any]:
        requested = job_permissions.parse_request(access_control_list, self._directory)
        with self._db.write() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_MANAGE")
            combine = job_permissions.replaced if replace_all else job_permissions.patched
            acl = combine(self._acl(doc), requested)
            doc["acl"] = [entry.to_doc() for entry in acl]
            self._save(conn, doc)
        return job_permissions.render(job_id, acl, self._directory)

    # runs

    def run_now(
        self, job_id: int, parameters: dict[str, Any], idempotency_token: str | None,
        caller: Caller,
    ) -> dict[str, int]:
        if idempotency_token is not None and not 0 < len(idempotency_token) <= \
                MAX_IDEMPOTENCY_TOKEN:
            raise InvalidParameter(
                f"idempotency_token must be 1 to {MAX_IDEMPOTENCY_TOKEN} characters long")
        python_params = parameters.get("python_params") or []
        if not isinstance(python_params, list) or not all(
                isinstance(p, str) for p in python_params):
            raise InvalidParameter("python_params must be a list of strings")
        with self._db.write() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_MANAGE_RUN")
            if idempotency_token is not None:
                row = conn.execute("SELECT run_id FROM run_idempotency WHERE token = ?",
                                   (idempotency_token,)).fetchone()
                if row is not None:
                    run = from_json(conn.execute("SELECT doc FROM runs WHERE run_id = ?",
                                                 (row["run_id"],)).fetchone()["doc"])
                    return {"run_id": run["run_id"], "number_in_job": run["number_in_job"]}
            run_id = self._db.next_value(conn, "run_id", RUN_ID_START)
            number = self._db.next_value(conn, f"runs_of_job:{job_id}", 1)
            run = {
                "run_id": run_id, "job_id": job_id, "number_in_job": number,
                "run_name": doc["settings"]["name"], "creator_user_name": caller.application_id,
                "start_time": clock.now_ms(), "transition_ms": self._transition_ms,
                "fails": FAILURE_TRIGGER in python_params,
                "overriding_parameters": {
                    kind: parameters[kind] for kind in RUN_PARAMETER_KINDS
                    if parameters.get(kind) is not None
                },
            }
            conn.execute("INSERT INTO runs (run_id, job_id, doc) VALUES (?, ?, ?)",
                         (run_id, job_id, to_json(run)))
            if idempotency_token is not None:
                conn.execute("INSERT INTO run_idempotency (token, run_id) VALUES (?, ?)",
                             (idempotency_token, run_id))
        return {"run_id": run_id, "number_in_job": number}

    def get_run(self, run_id: int, caller: Caller) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                raise NotFound(f"Run {run_id} does not exist.")
            run = from_json(row["doc"])
            job = conn.execute("SELECT doc FROM jobs WHERE job_id = ?",
                               (run["job_id"],)).fetchone()
        if job is not None and job_permissions.effective_rank(
                self._acl(from_json(job["doc"])), caller) < RANK["CAN_VIEW"]:
            raise PermissionDenied(
                f"{caller.application_id} does not have CAN_VIEW permission on run {run_id}.")
        return self._render_run(run, clock.now_ms())

    def _render_run(self, run: dict[str, Any], now_ms: int) -> dict[str, Any]:
        start, transition = run["start_time"], run["transition_ms"]
        pending_ms = transition // 2
        finished_at = start + transition
        state: dict[str, Any]
        if now_ms >= finished_at:
            result = "FAILED" if run["fails"] else "SUCCESS"
            message = (
                f"Run failed: python_params contained '{FAILURE_TRIGGER}', the emulator's "
                "failure trigger." if run["fails"] else ""
            )
            state = {"life_cycle_state": "TERMINATED", "result_state": result,
                     "state_message": message}
            end_time, setup, execution = finished_at, pending_ms, transition - pending_ms
        elif now_ms >= start + pending_ms:
            state = {"life_cycle_state": "RUNNING", "state_message": "In run"}
            end_time, setup, execution = 0, pending_ms, now_ms - start - pending_ms
        else:
            state = {"life_cycle_state": "PENDING", "state_message": "Waiting for cluster"}
            end_time, setup, execution = 0, now_ms - start, 0
        return {
            "job_id": run["job_id"],
            "run_id": run["run_id"],
            "number_in_job": run["number_in_job"],
            "run_name": run["run_name"],
            "creator_user_name": run["creator_user_name"],
            "state": state,
            "start_time": start,
            "end_time": end_time,
            "setup_duration": setup,
            "execution_duration": execution,
            "cleanup_duration": 0,
            "run_duration": (end_time or now_ms) - start,
            "trigger": "ONE_TIME",
            "run_type": "JOB_RUN",
            "run_page_url": f"{self._base_url}/?o={self._workspace_id}#job/{run['job_id']}"
                            f"/run/{run['run_id']}",
            "overriding_parameters": run["overriding_parameters"],
        }
