"""The typed public surface: `providers/__init__.pyi`, generated from the registry
(tools/typed_surface.py), is current, declares what the run time makes, and lets mypy judge a
team's program: a misspelled argument and a wrong type each fail it; the correct program
passes."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import providers
from providers.client.sdk_services import sdk_dir
from providers.core.registry import kinds
from tools import typed_surface


@pytest.fixture(scope="module")
def stub() -> ast.Module:
    return ast.parse(typed_surface.STUB.read_text())


def test_the_committed_stub_is_current() -> None:
    committed = typed_surface.STUB.read_text() if typed_surface.STUB.exists() else ""
    assert committed == typed_surface.stub_text(), (
        f"providers/__init__.pyi is stale: run `{typed_surface.COMMAND}` and commit it"
    )


def test_the_stub_and_its_marker_are_in_the_wheel(tmp_path: Path) -> None:
    """What setuptools puts in the wheel (its build_py step, from pyproject.toml)."""
    build = subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()",
         "-q", "build_py", "-d", str(tmp_path)],
        cwd=Path(providers.__file__).parents[1], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    assert (tmp_path / "providers" / "py.typed").is_file()
    assert (tmp_path / "providers" / "__init__.pyi").read_text() == typed_surface.STUB.read_text()


def test_the_stub_names_every_public_name(stub: ast.Module) -> None:
    assert _stub_all(stub) == sorted(providers.__all__)
    declared = {node.name for node in stub.body if isinstance(node, ast.ClassDef)}
    declared |= {
        target.id
        for node in stub.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    declared |= {
        alias.asname or alias.name
        for node in stub.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert set(providers.__all__) <= declared


def test_each_args_class_takes_the_run_times_fields(stub: ast.Module) -> None:
    """Every args class's `__init__` in the stub has the generated dataclass's fields, in its
    order, with a default exactly where the dataclass has one."""
    classes = {node.name: node for node in stub.body if isinstance(node, ast.ClassDef)}
    checked = 0
    for name in providers.__all__:
        made = getattr(providers, name)
        if not (isinstance(made, type) and dataclasses.is_dataclass(made)):
            continue
        if name.startswith("WorkspaceAuth"):
            continue  # imported from its module, not generated
        declared = classes[made.__name__]
        init = next(
            n for n in declared.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"
        )
        parameters = [a.arg for a in init.args.args[1:]]
        defaulted = parameters[len(parameters) - len(init.args.defaults) :]
        fields = dataclasses.fields(made)
        assert parameters == [f.name for f in fields], name
        assert defaulted == [f.name for f in fields if f.default is not dataclasses.MISSING]
        checked += 1
    assert checked > len(kinds())


def test_each_resource_class_has_its_outputs(stub: ast.Module) -> None:
    classes = {node.name: node for node in stub.body if isinstance(node, ast.ClassDef)}
    for kind in kinds():
        declared = classes[kind.name]
        assert [ast.unparse(base) for base in declared.bases] == ["KindResource"]
        attributes = {
            n.target.id: ast.unparse(n.annotation)
            for n in declared.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
        }
        for name in (*kind.shown, *kind.outputs):
            assert attributes[name].startswith("pulumi.Output["), (kind.name, name)


def test_fields_carry_the_apis_descriptions(stub: ast.Module) -> None:
    """The model's own description where it has one (SecretScope's principal), else the
    docstring of the SDK field: the one its model derives from (a job's
    `max_concurrent_runs`, from `jobs.JobSettings`), or for a model written by hand, the one
    of the SDK class named for the same object (a catalog's `storage_root`, `CatalogInfo`)."""
    assert _field_docstring(stub, "SecretScopeArgs", "initial_manage_principal") == (
        providers.SecretScope.kind.model.model_fields["initial_manage_principal"].description
    )
    sdk = sdk_dir()
    assert sdk is not None
    for args_class, field, module, sdk_class in [
        ("JobArgs", "max_concurrent_runs", "jobs", "JobSettings"),
        ("CatalogArgs", "storage_root", "catalog", "CatalogInfo"),
    ]:
        written = _field_docstring(stub, args_class, field)
        assert written, (args_class, field)
        source = (sdk / "service" / f"{module}.py").read_text()
        in_class = source[source.index(f"\nclass {sdk_class}:") :]
        in_class = in_class[: in_class.index("\nclass ", 1)]
        declared = re.search(rf'\n    {field}: [^\n]*\n    """(.*?)"""', in_class, re.DOTALL)
        assert declared, (module, sdk_class, field)
        assert inspect.cleandoc(written) == inspect.cleandoc(declared[1])


TEAM_PROGRAMS = {
    "correct": """
        import pulumi
        from providers import (
            Job, JobArgs, NotebookTaskArgs, SecretScope, SecretScopeArgs, TaskArgs,
            WorkspaceAuth, WorkspaceAuthArgs,
        )

        auth = WorkspaceAuth("ws", WorkspaceAuthArgs(base_url="https://ws.example"))
        scope = SecretScope("app", SecretScopeArgs(name="app"), connection=auth.connection)
        job = Job(
            "nightly",
            JobArgs(
                name="nightly",
                max_concurrent_runs=1,
                tasks=[
                    TaskArgs(
                        task_key="main",
                        notebook_task=NotebookTaskArgs(notebook_path="/Shared/main"),
                    ),
                    {"task_key": "report", "depends_on": [{"task_key": "main"}]},
                ],
            ),
            connection=auth.connection,
        )
        job_id: pulumi.Output[int] = job.job_id
        pulumi.export("scope", scope.name)
    """,
    "misspelled": """
        from providers import JobArgs

        JobArgs(name="nightly", max_concurent_runs=1)
    """,
    "wrong_type": """
        from providers import SecretScopeArgs

        SecretScopeArgs(name=3)
    """,
}
EXPECTED_ERRORS = {
    "correct": [],
    "misspelled": [
        'Unexpected keyword argument "max_concurent_runs" for "JobArgs"; '
        'did you mean "max_concurrent_runs"?  [call-arg]'
    ],
    "wrong_type": [
        'Argument "name" to "SecretScopeArgs" has incompatible type "int"; '
        'expected "str | Awaitable[str] | Output[str]"  [arg-type]'
    ],
}


def test_mypy_judges_a_teams_program(tmp_path: Path) -> None:
    """Three programs in a project of their own, checked by one mypy run with the package as
    installed: only the misspelled argument and the wrong type are errors, each naming it."""
    for name, text in TEAM_PROGRAMS.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    (tmp_path / "mypy.ini").write_text("[mypy]\n")
    run = subprocess.run(
        [
            sys.executable, "-m", "mypy",
            "--config-file", "mypy.ini",
            "--cache-dir", str(tmp_path / "cache"),
            "--no-error-summary", "--hide-error-context", "--show-error-codes",
            *(f"{name}.py" for name in TEAM_PROGRAMS),
        ],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    errors: dict[str, list[str]] = {name: [] for name in TEAM_PROGRAMS}
    for line in run.stdout.splitlines():
        found = re.match(r"(\w+)\.py:\d+: (error|note): (.*)$", line)
        assert found, f"not a message on a program: {line}\n{run.stderr}"
        if found[2] == "error":
            errors[found[1]].append(found[3])
    assert errors == EXPECTED_ERRORS, run.stdout + run.stderr
    assert run.returncode == 1


def _stub_all(stub: ast.Module) -> list[str]:
    for node in stub.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
            return list(ast.literal_eval(node.value))
    raise AssertionError("the stub has no __all__")


def _field_docstring(stub: ast.Module, class_name: str, field: str) -> str | None:
    declared = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    for statement, following in zip(declared.body, declared.body[1:], strict=False):
        if (
            isinstance(statement, ast.AnnAssign)
            and ast.unparse(statement.target) == field
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
        ):
            return str(following.value.value)
    return None
