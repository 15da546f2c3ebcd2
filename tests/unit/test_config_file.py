"""Round-trip editing of a stack's settings file (stacks/config_file.py): the file's comments,
order, quoting and items come back as they were; new items go at the end of their list,
indented as the file indents; the file is replaced atomically, keeping its mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import yaml

from stacks import config_file
from stacks.pulumi_cli import REPO_ROOT

SETTINGS = """\
encryptionsalt: v1:abc
# The team's stack: comments stay where they are.
config:
  workspace:baseUrl: https://adb-1.azuredatabricks.net  # the workspace
  workspace:secretScopes:
    - name: etl-secrets
    - name: "quoted"
  # Jobs, nightly first.
  workspace:jobs:
    - name: nightly
      tags: {team: data}
      tasks:
        - task_key: a
          depends_on: [{task_key: b}]  # flow style kept
  workspace:wireForm: public
# The end.
"""


@pytest.mark.parametrize("stack", ["local", "dev", "staging", "prod"])
def test_the_committed_files_come_back_byte_for_byte(stack: str) -> None:
    text = (REPO_ROOT / f"Pulumi.{stack}.yaml").read_text()
    assert config_file.dump(config_file.loads(text)) == text


def test_items_go_at_the_end_of_their_list_and_comments_stay_put() -> None:
    document = config_file.loads(SETTINGS)
    added = config_file.append_items(
        document, "workspace:jobs", [{"name": "adopted", "import": "42", "max_retries": 1}]
    )
    assert added == 1
    config_file.append_items(document, "workspace:secretScopes", [{"name": "hand-made"}])
    text = config_file.dump(document)
    assert text == SETTINGS.replace(
        "    - name: \"quoted\"\n",
        "    - name: \"quoted\"\n    - name: hand-made\n",
    ).replace(
        "          depends_on: [{task_key: b}]  # flow style kept\n",
        "          depends_on: [{task_key: b}]  # flow style kept\n"
        "    - name: adopted\n      import: '42'\n      max_retries: 1\n",
    )
    # The comment above a key stays above it, not above the new items.
    lines = text.splitlines()
    assert lines[lines.index("  # Jobs, nightly first.") + 1] == "  workspace:jobs:"


def test_a_comment_after_the_last_list_stays_at_the_end() -> None:
    document = config_file.loads(SETTINGS)
    config_file.append_items(document, "workspace:groups", [{"name": "g", "import": "7"}])
    text = config_file.dump(document)
    assert text.endswith(
        "  workspace:wireForm: public\n  workspace:groups:\n    - name: g\n"
        "      import: '7'\n# The end.\n"
    )
    assert yaml.safe_load(text)["config"]["workspace:groups"] == [{"name": "g", "import": "7"}]


def test_the_file_indent_is_kept() -> None:
    text = "config:\n  workspace:jobs:\n  - name: a\n    max_retries: 1\n"  # dashes at the key
    document = config_file.loads(text)
    config_file.append_items(document, "workspace:jobs", [{"name": "b", "tags": {"x": "y"}}])
    assert config_file.dump(document) == text + "  - name: b\n    tags:\n      x: y\n"


def test_an_empty_flow_list_grows_into_a_block_list() -> None:
    document = config_file.loads("config:\n  workspace:jobs: []\n")
    config_file.append_items(document, "workspace:jobs", [{"name": "a"}])
    assert config_file.dump(document) == "config:\n  workspace:jobs:\n    - name: a\n"


def test_a_file_without_config_gets_one() -> None:
    document = config_file.loads("encryptionsalt: v1:abc\n")
    config_file.append_items(document, "workspace:jobs", [{"name": "a"}])
    assert yaml.safe_load(config_file.dump(document)) == {
        "encryptionsalt": "v1:abc", "config": {"workspace:jobs": [{"name": "a"}]}}


def test_a_key_that_is_not_a_list_is_refused() -> None:
    document = config_file.loads("config:\n  workspace:jobs: text\n")
    with pytest.raises(ValueError, match="workspace:jobs must be a list"):
        config_file.append_items(document, "workspace:jobs", [{"name": "a"}])


def test_the_dry_run_fragment_is_what_would_be_added() -> None:
    fragment = config_file.render_additions(
        {"workspace:jobs": [{"name": "a", "import": "1", "tasks": [{"task_key": "t"}]}]}
    )
    assert fragment == (
        "config:\n  workspace:jobs:\n    - name: a\n      import: '1'\n      tasks:\n"
        "        - task_key: t\n"
    )
    assert config_file.render_additions({}) == ""


def test_replace_is_atomic_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text("config: {}\n")
    os.chmod(path, 0o640)
    config_file.replace_atomically(path, "config:\n  workspace:baseUrl: x\n")
    assert path.read_text() == "config:\n  workspace:baseUrl: x\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Pulumi.dev.yaml"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text("config: {}\n")

    def crash(src: str, dst: str) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(config_file.os, "replace", crash)
    with pytest.raises(OSError, match="disk gone"):
        config_file.replace_atomically(path, "config:\n  half: of a file\n")
    assert path.read_text() == "config: {}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Pulumi.dev.yaml"]
