"""The real Pulumi engine drives a tiny dynamic resource: up, no-op up, destroy.

This proves the engine built from the Go module proxy, our launchers and the
Python dynamic-provider path work on this machine, independent of the product.
"""

import sys
import textwrap
from pathlib import Path

import pytest

from stacks.pulumi_cli import PulumiCli

pytestmark = pytest.mark.engine

PROGRAM = '''
from pathlib import Path

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, Resource, ResourceProvider


class MarkerFile(ResourceProvider):
    """Writes one file; its content is the only input."""

    def create(self, props):
        Path(props["path"]).write_text(props["content"])
        return CreateResult(id_=props["path"], outs=props)

    def diff(self, _id, olds, news):
        changed = [key for key in ("path", "content") if olds.get(key) != news.get(key)]
        return DiffResult(changes=bool(changed), replaces=["path"] if "path" in changed else [])

    def update(self, _id, _olds, news):
        Path(news["path"]).write_text(news["content"])
        return pulumi.dynamic.UpdateResult(outs=news)

    def delete(self, _id, props):
        Path(props["path"]).unlink(missing_ok=True)


class Marker(Resource):
    def __init__(self, name, path, content):
        super().__init__(MarkerFile(), name, {"path": path, "content": content})


config = pulumi.Config()
marker = Marker("marker", config.require("path"), config.require("content"))
pulumi.export("marker_id", marker.id)
'''


@pytest.fixture()
def smoke_stack(tmp_path: Path) -> PulumiCli:
    project = tmp_path / "project"
    project.mkdir()
    venv = Path(sys.prefix)
    (project / "Pulumi.yaml").write_text(textwrap.dedent(f"""\
        name: engine-smoke
        runtime:
          name: python
          options:
            virtualenv: {venv}
    """))
    (project / "__main__.py").write_text(PROGRAM)
    cli = PulumiCli(project_dir=project, stack="smoke", state_dir=tmp_path / "state")
    cli.select_or_init()
    return cli


def test_engine_reports_pinned_version(smoke_stack: PulumiCli) -> None:
    import importlib.metadata

    printed = smoke_stack.run("version").stdout.strip()
    assert printed == "v" + importlib.metadata.version("pulumi")


def test_dynamic_resource_up_noop_destroy(smoke_stack: PulumiCli, tmp_path: Path) -> None:
    marker = tmp_path / "marker.txt"
    smoke_stack.set_config("path", str(marker))
    smoke_stack.set_config("content", "hello")

    first = smoke_stack.up()
    assert "+ 2 created" in first.stdout  # the stack and the marker
    assert marker.read_text() == "hello"
    assert smoke_stack.outputs()["marker_id"] == str(marker)

    second = smoke_stack.up("--expect-no-changes")
    assert "2 unchanged" in second.stdout  # the stack and the marker

    smoke_stack.set_config("content", "changed")
    third = smoke_stack.up()
    assert "~ 1 updated" in third.stdout
    assert marker.read_text() == "changed"

    smoke_stack.destroy()
    assert not marker.exists()
    assert smoke_stack.export()["deployment"].get("resources") in (None, [])
