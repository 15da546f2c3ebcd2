"""Helpers of the multi-task job tests: task and job bodies, and the calls they repeat."""

from __future__ import annotations

import base64
from typing import Any

from tests.emulator.support import Api, unique

SHARED_CLUSTER = "0101-120000-shared01"  # clusters of the initial data
ETL_CLUSTER = "0101-120000-etl00002"
SMALL_CLUSTER = {"spark_version": "13.3.x-scala2.12", "node_type_id": "Standard_DS3_v2",
                 "num_workers": 1}


def notebook(key: str, *depends_on: str, **extra: Any) -> dict[str, Any]:
    """A notebook task on the shared cluster, depending on the tasks named."""
    task: dict[str, Any] = {"task_key": key,
                            "notebook_task": {"notebook_path": f"/Shared/{key}"},
                            "existing_cluster_id": SHARED_CLUSTER}
    if depends_on:
        task["depends_on"] = [{"task_key": name} for name in depends_on]
    task.update(extra)
    return task


def python_script(key: str, *parameters: str, **extra: Any) -> dict[str, Any]:
    return {"task_key": key,
            "spark_python_task": {"python_file": f"dbfs:/jobs/{key}.py",
                                  "parameters": list(parameters)},
            "existing_cluster_id": SHARED_CLUSTER, **extra}


def job_body(*tasks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": unique("multi"), "tasks": list(tasks), **extra}


def import_notebook(api: Api, path: str, source: str = "print('hello')\n") -> None:
    """A Python notebook at `path` (its folder made, one there overwritten)."""
    folder = path.rsplit("/", 1)[0] or "/"
    response = api.post("/api/2.0/workspace/mkdirs", json={"path": folder})
    assert response.status_code == 200, response.text
    response = api.post("/api/2.0/workspace/import", json={
        "path": path, "format": "SOURCE", "language": "PYTHON", "overwrite": True,
        "content": base64.b64encode(source.encode()).decode()})
    assert response.status_code == 200, response.text


def import_notebooks(api: Api, body: dict[str, Any]) -> None:
    """The notebooks the job's tasks run, so that its runs find them (a notebook task of a
    missing notebook fails); a path holding the failure trigger is left out."""
    for task in body.get("tasks") or []:
        path = (task.get("notebook_task") or {}).get("notebook_path")
        if isinstance(path, str) and "--fail" not in path:
            import_notebook(api, path)


def create(api: Api, body: dict[str, Any], version: str = "2.2") -> int:
    """The job, and the notebooks its tasks run (`import_notebooks`)."""
    import_notebooks(api, body)
    response = api.post(f"/api/{version}/jobs/create", json=body)
    assert response.status_code == 200, response.text
    return response.json()["job_id"]


def get_job(api: Api, job_id: int, version: str = "2.2", **params: Any) -> dict[str, Any]:
    response = api.get(f"/api/{version}/jobs/get", params={"job_id": job_id, **params})
    assert response.status_code == 200, response.text
    return response.json()


def settings(api: Api, job_id: int, version: str = "2.2") -> dict[str, Any]:
    return get_job(api, job_id, version)["settings"]


def start_run(api: Api, job_id: int, version: str = "2.2", **parameters: Any) -> int:
    response = api.post(f"/api/{version}/jobs/run-now", json={"job_id": job_id, **parameters})
    assert response.status_code == 200, response.text
    return response.json()["run_id"]


def get_run(api: Api, run_id: int, version: str = "2.2") -> dict[str, Any]:
    response = api.get(f"/api/{version}/jobs/runs/get", params={"run_id": run_id})
    assert response.status_code == 200, response.text
    return response.json()


def run_job(api: Api, job_id: int, **parameters: Any) -> dict[str, Any]:
    return get_run(api, start_run(api, job_id, **parameters))


def results(run: dict[str, Any]) -> dict[str, str]:
    """task_key -> result_state."""
    return {task["task_key"]: task["state"].get("result_state") for task in run["tasks"]}
