"""The experiments area of the REST API (MLflow 2.0): create, read by id or name, rename,
delete to the trash, restore, search, and tags."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls

EXPERIMENTS_PATH = "/api/2.0/mlflow/experiments"
# Module-level: inside the class `list` names its method.
Objects = list[dict[str, Any]]


class ExperimentsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ExperimentsApi({self.client!r})"

    def get(self, experiment_id: str) -> dict[str, Any]:
        """The experiment (a deleted one too: `lifecycle_stage` says which)."""
        return self.client.get(f"{EXPERIMENTS_PATH}/get",
                               {"experiment_id": experiment_id})["experiment"]

    def get_by_name(self, name: str) -> dict[str, Any]:
        return self.client.get(f"{EXPERIMENTS_PATH}/get-by-name",
                               {"experiment_name": name})["experiment"]

    def create(self, body: dict[str, Any]) -> str:
        """The new experiment's id. Not repeated after a lost answer: the name is unique, so
        the kind looks for it (create_or_adopt)."""
        return str(self.client.post(f"{EXPERIMENTS_PATH}/create", body)["experiment_id"])

    def rename(self, experiment_id: str, new_name: str) -> None:
        self.client.post(f"{EXPERIMENTS_PATH}/update",
                         {"experiment_id": experiment_id, "new_name": new_name},
                         idempotent=True)

    def delete(self, experiment_id: str) -> None:
        """Moves it to the trash."""
        self.client.post(f"{EXPERIMENTS_PATH}/delete", {"experiment_id": experiment_id},
                         idempotent=True)

    def restore(self, experiment_id: str) -> None:
        self.client.post(f"{EXPERIMENTS_PATH}/restore", {"experiment_id": experiment_id},
                         idempotent=True)

    def set_tag(self, experiment_id: str, key: str, value: str) -> None:
        self.client.post(f"{EXPERIMENTS_PATH}/set-experiment-tag",
                         {"experiment_id": experiment_id, "key": key, "value": value},
                         idempotent=True)

    def delete_tag(self, experiment_id: str, key: str) -> None:
        self.client.post(f"{EXPERIMENTS_PATH}/delete-experiment-tag",
                         {"experiment_id": experiment_id, "key": key}, idempotent=True)

    def list(self, filter_: str | None = None) -> Objects:
        """Every active experiment the search filter selects (all of them without one), all
        pages."""
        body: dict[str, Any] = {"max_results": 1000}
        if filter_:
            body["filter"] = filter_
        found: Objects = []
        while True:
            page = self.client.post(f"{EXPERIMENTS_PATH}/search", body, idempotent=True)
            found += page.get("experiments") or []
            token = page.get("next_page_token")
            if not token:
                return found
            body = {**body, "page_token": token}
