"""sdk_shapes: the SDK's dataclasses as shapes, derived once per SDK version and read back
from disk, so the job's read path never executes the SDK's modules."""

from __future__ import annotations

import dataclasses
import enum
import json
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from databricks.sdk.service import compute, jobs

from providers.client import sdk_shapes
from providers.client.sdk_shapes import ListOf, MapOf, SdkClass, SdkEnum

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh(monkeypatch, tmp_path) -> Path:
    """An empty cache directory and no shapes loaded in this process."""
    monkeypatch.setenv(sdk_shapes.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(sdk_shapes, "_LOADED", {})
    return tmp_path


def expected_shape(hint: Any) -> Any:
    """What the SDK's own type hint says, read independently of the module under test."""
    if typing.get_origin(hint) is typing.Union:
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        hint = options[0] if len(options) == 1 else Any
    if hint in (str, int, float, bool):
        return hint
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return SdkClass(hint.__module__.rsplit(".", 1)[-1], hint.__name__)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return SdkEnum(hint.__module__.rsplit(".", 1)[-1], hint.__name__)
    if typing.get_origin(hint) is list:
        return ListOf(expected_shape_nested(typing.get_args(hint)[0]))
    if typing.get_origin(hint) is dict:
        return MapOf(expected_shape_nested(typing.get_args(hint)[1]))
    return object


def expected_shape_nested(hint: Any) -> Any:
    # An item or value type is taken as written: an Optional there would be "anything".
    return object if typing.get_origin(hint) is typing.Union else expected_shape(hint)


@pytest.mark.parametrize("module", [jobs, compute], ids=["jobs", "compute"])
def test_every_class_and_enum_has_the_sdks_shape(fresh, module) -> None:
    name = module.__name__.rsplit(".", 1)[-1]
    classes = [
        v for v in vars(module).values()
        if isinstance(v, type) and v.__module__ == module.__name__
    ]
    assert len(classes) > 100
    for cls in classes:
        if dataclasses.is_dataclass(cls):
            expected = {f: expected_shape(h) for f, h in typing.get_type_hints(cls).items()}
            assert sdk_shapes.fields(SdkClass(name, cls.__name__)) == expected, cls.__name__
            assert list(sdk_shapes.fields(SdkClass(name, cls.__name__))) == [
                f.name for f in dataclasses.fields(cls)
            ]
        elif issubclass(cls, enum.Enum):
            values = tuple(member.value for member in cls)
            assert sdk_shapes.enum_values(SdkEnum(name, cls.__name__)) == values


def test_shapes_read_back_from_disk_are_those_derived(fresh, monkeypatch) -> None:
    derived = sdk_shapes.shapes("jobs")
    task = derived.fields("Task")
    stored = list(fresh.glob("*/jobs-*.json"))
    assert len(stored) == 1 and stored[0].parent.name.endswith(f"-v{sdk_shapes.FORMAT}")
    assert list(fresh.glob("*/.*")) == []  # no temporary file left
    monkeypatch.setattr(sdk_shapes, "_LOADED", {})
    monkeypatch.setattr(sdk_shapes, "_derive", lambda module: pytest.fail("derived again"))
    assert sdk_shapes.shapes("jobs").fields("Task") == task
    assert task["depends_on"] == ListOf(SdkClass("jobs", "TaskDependency"))
    assert task["new_cluster"] == SdkClass("compute", "ClusterSpec")
    assert task["run_if"] == SdkEnum("jobs", "RunIf")
    assert task["max_retries"] is int
    assert sdk_shapes.fields(SdkClass("jobs", "JobSettings"))["tags"] == MapOf(str)


def test_a_file_of_other_sources_or_unreadable_is_derived_again(fresh, monkeypatch) -> None:
    sdk_shapes.shapes("jobs")
    stored = next(fresh.glob("*/jobs-*.json"))
    kept = json.loads(stored.read_text())
    calls: list[str] = []
    derive = sdk_shapes._derive

    def counted(module: str) -> dict[str, Any]:
        calls.append(module)
        return derive(module)

    monkeypatch.setattr(sdk_shapes, "_derive", counted)
    for written in (
        json.dumps({**kept, "source": {**kept["source"], "size": -1}}),  # an edited install
        "{not json",
        json.dumps([1, 2]),
        json.dumps({"source": kept["source"]}),  # cut short
    ):
        stored.write_text(written)
        monkeypatch.setattr(sdk_shapes, "_LOADED", {})
        tasks = sdk_shapes.fields(SdkClass("jobs", "JobSettings"))["tasks"]
        assert tasks == ListOf(SdkClass("jobs", "Task"))
        assert json.loads(stored.read_text()) == kept  # written whole again
    assert calls == ["jobs"] * 4


def test_installs_of_one_sdk_version_side_by_side_each_keep_their_own(fresh, monkeypatch) -> None:
    # Two virtual environments with the same SDK version, installed at different times,
    # share the cache directory: each derives once, and then reads its own file back, never
    # deriving again because the other one wrote (before, both wrote `jobs.json`, and each
    # process of either derived the shapes again and overwrote the other's).
    ours = sdk_shapes._source_of("jobs")
    theirs = {**ours, "mtime_ns": ours["mtime_ns"] + 1}
    calls: list[dict[str, Any]] = []
    derive = sdk_shapes._derive

    def counted(module: str) -> dict[str, Any]:
        calls.append(installed["source"])
        return derive(module)

    installed = {"source": ours}
    monkeypatch.setattr(sdk_shapes, "_derive", counted)
    monkeypatch.setattr(sdk_shapes, "_source_of", lambda module: installed["source"])
    for source in (ours, theirs, ours, theirs, ours):
        installed["source"] = source
        monkeypatch.setattr(sdk_shapes, "_LOADED", {})
        assert "task_key" in sdk_shapes.fields(SdkClass("jobs", "Task"))
    assert calls == [ours, theirs]
    stored = sorted(fresh.glob("*/jobs-*.json"))
    assert len(stored) == 2
    assert sorted(json.loads(path.read_text())["source"]["mtime_ns"] for path in stored) == [
        ours["mtime_ns"], theirs["mtime_ns"]
    ]


def test_off_or_an_unwritable_directory_keeps_them_in_memory(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(sdk_shapes, "_LOADED", {})
    monkeypatch.setenv(sdk_shapes.CACHE_DIR_ENV, "off")
    assert sdk_shapes.cache_dir() is None
    assert "task_key" in sdk_shapes.fields(SdkClass("jobs", "Task"))
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setattr(sdk_shapes, "_LOADED", {})
    monkeypatch.setenv(sdk_shapes.CACHE_DIR_ENV, str(blocked / "below"))
    assert "task_key" in sdk_shapes.fields(SdkClass("jobs", "Task"))


def test_a_class_the_sdk_does_not_have_is_refused_by_name(fresh) -> None:
    with pytest.raises(AttributeError, match="the SDK's jobs module has no dataclass 'Tusk'"):
        sdk_shapes.shapes("jobs").Tusk  # noqa: B018
    with pytest.raises(AttributeError, match="no enum 'Nope'"):
        sdk_shapes.enum_values(SdkEnum("jobs", "Nope"))


def test_a_jobs_read_path_loads_none_of_the_sdks_modules(tmp_path) -> None:
    # The first process derives and stores the shapes; the second, like every later
    # provider host, reads them and never executes the SDK's modules.
    code = (
        "import json, sys\n"
        "from providers.core.registry import kind_named\n"
        "from providers.jobs.job_diff import canonical, changes\n"
        "from providers.jobs.job_wire import lift, task_types\n"
        "from providers.access.acl import has_owner\n"
        "kind_named('Job').provider(); kind_named('JobPermissions').provider()\n"
        "job = {'name': 'n', 'tasks': [{'task_key': 'a', 'max_retries': '2',\n"
        "        'notebook_task': {'notebook_path': '/n'}}]}\n"
        "form = canonical(job, declared=job)\n"
        "assert changes(job, form) == [], changes(job, form)\n"
        "lift({'notebook_task': {'notebook_path': '/n'}})\n"
        "print(json.dumps({'sdk': sorted(m for m in sys.modules if m.startswith('databricks.')),\n"
        "                  'owner': has_owner('jobs'), 'types': 'notebook_task' in task_types(),\n"
        "                  'retries': form['tasks'][0]['max_retries']}))\n"
    )
    env = {"PATH": "/usr/bin:/bin", sdk_shapes.CACHE_DIR_ENV: str(tmp_path)}

    def run() -> dict[str, Any]:
        result = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True,
            text=True, timeout=120, check=True,
        )
        return json.loads(result.stdout.splitlines()[-1])

    first = run()
    assert "databricks.sdk.service.jobs" in first["sdk"]
    again = run()
    assert again == {"sdk": [], "owner": True, "types": True, "retries": 2}
