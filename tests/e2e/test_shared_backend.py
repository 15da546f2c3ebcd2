"""A team's state backend for real: an S3-compatible object store on loopback
(tools/object_store.py) holding a stack's state, every operation's checkpoint and its
secrets settings; two `pulumi up` of one stack at once, on it and on the file backend; a
stack moved from the file backend to the object store and back with docs/state.md's own
commands; the pull-request workflow's `dev` job run from .github/workflows/preview.yml."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
import requests
import yaml

from stacks.config import file_values
from stacks.config_rules import object_lists
from stacks.pulumi_cli import ENGINE_LOCK_MESSAGE, LOCAL_PASSPHRASE, REPO_ROOT, PulumiCli
from tests.e2e.team_support import checkout_like, environment_stack, run_workflow_steps
from tools.drills import inventory
from tools.drills.concurrent_ups import HOLDING_LOCK, race
from tools.drills.local_stack import local_objects, scratch_stack
from tools.object_store import ObjectStore
from workspace_emulator.testing import (
    EmulatorInfo,
    clear_request_log,
    fetch_token,
    request_log,
)

pytestmark = pytest.mark.engine

PROJECT = "workspace"


def history(cli: PulumiCli) -> list[dict]:
    return json.loads(cli.run("stack", "history", "--json", "--stack", cli.stack).stdout)


def test_state_checkpoints_and_secrets_settings_live_in_the_object_store(
    tmp_path: Path, emulator: EmulatorInfo, object_store: ObjectStore
) -> None:
    prefix = "state-test"
    cli = scratch_stack(tmp_path, emulator, objects={"secretScopes": [{"name": "shared"}]},
                        stack="team", backend_url=object_store.backend_url(prefix),
                        extra_env=object_store.env())
    cli.up()
    cli.up("--expect-no-changes")

    stacks, history_dir = f"{prefix}/.pulumi/stacks/{PROJECT}/", f"{prefix}/.pulumi/history/"
    assert f"{stacks}team.json" in object_store.keys(stacks)
    # one checkpoint and one history entry per operation: the two ups
    assert len([k for k in object_store.keys(history_dir) if k.endswith(".checkpoint.json")]) \
        == len(history(cli)) == 2
    checkpoint = json.loads(object_store.read(f"{stacks}team.json"))["checkpoint"]["latest"]
    assert [r["id"] for r in checkpoint["resources"] if r["type"].endswith("SecretScope")] \
        == ["shared"]
    settings = yaml.safe_load((cli.project_dir / "Pulumi.team.yaml").read_text())
    assert checkpoint["secrets_providers"] == {
        "type": "passphrase", "state": {"salt": settings["encryptionsalt"]}}
    assert not (cli.state_dir / ".pulumi").exists()  # nothing went to a file backend
    assert object_store.keys(f"{prefix}/.pulumi/locks/") == []  # released


@pytest.mark.parametrize("backend", ["object store", "file"])
def test_two_ups_at_once_one_is_refused_and_changes_nothing(
    tmp_path: Path, emulator: EmulatorInfo, object_store: ObjectStore, backend: str
) -> None:
    shared = backend == "object store"
    prefix = f"lock-test-{tmp_path.name}"
    cli = scratch_stack(tmp_path, emulator,
                        backend_url=object_store.backend_url(prefix) if shared else None,
                        extra_env=object_store.env() if shared else None)
    before = inventory.take(emulator, ("finance",))

    contest = race(cli, tmp_path)
    contest.holder.process.wait(timeout=900)
    assert contest.holder.process.returncode == 0, contest.holder.output()
    refused = contest.refused.output()
    assert ENGINE_LOCK_MESSAGE in refused and "`pulumi cancel`" in refused
    assert contest.refused.process.returncode != 0
    assert HOLDING_LOCK not in refused and "dynamic/workspace:" not in refused  # no step
    assert len(history(cli)) == 1  # the refused up recorded no update either

    clear_request_log(emulator)
    second = cli.up("--expect-no-changes")  # the refused one, run again
    assert f"{unchanged_of_six_kinds()} unchanged" in second.stdout
    assert not [e for e in request_log(emulator)
                if e["service"] == "platform" and e["method"] != "GET"]
    verdict = inventory.judge(before, inventory.take(emulator, ("finance",)), local_objects(),
                              f"{PROJECT}/{cli.stack}/")
    assert verdict.problems == []
    locks = (object_store.keys(f"{prefix}/.pulumi/locks/") if shared else
             [p for p in (cli.state_dir / ".pulumi" / "locks").rglob("*.json")])
    assert locks == []


def documented_block(after: str) -> str:
    """The first fenced block of docs/state.md after the line containing `after`."""
    text = (REPO_ROOT / "docs" / "state.md").read_text()
    return text[text.index(after):].split("```\n", 2)[1]


FILE_PLACEHOLDER = "file://$PWD/.pulumi-state"
SHARED_PLACEHOLDER = "s3://my-bucket/workspace-iac"


def test_moving_a_stack_to_the_object_store_and_back_as_the_docs_say(
    tmp_path: Path, emulator: EmulatorInfo, object_store: ObjectStore
) -> None:
    checkout = checkout_like(tmp_path / "checkout")
    prefix = "moved"
    shared_url = object_store.backend_url(prefix)
    here = environment_stack(checkout, "dev", emulator, extra_env=object_store.env())
    write_local_objects(checkout / "Pulumi.dev.yaml")
    before = inventory.take(emulator, ("finance",))
    here.up()
    there = PulumiCli(project_dir=checkout, stack="dev", state_dir=here.state_dir,
                      extra_env=object_store.env(), backend_url=shared_url)
    steps = documented_block("To move a stack's state to a shared backend")
    assert steps.count(FILE_PLACEHOLDER) == 2 and steps.count(SHARED_PLACEHOLDER) == 2
    # `pulumi login` decides the backend, as for a user: no PULUMI_BACKEND_URL
    env = {k: v for k, v in here.env().items() if k != "PULUMI_BACKEND_URL"}
    stack_file = f"{prefix}/.pulumi/stacks/{PROJECT}/dev.json"
    local_file = here.state_dir / ".pulumi" / "stacks" / PROJECT / "dev.json"

    moved = run_documented_steps(moving(steps, FILE_PLACEHOLDER, shlex.quote(shared_url)),
                             checkout, env)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert stack_file in object_store.keys(f"{prefix}/") and not local_file.exists()
    assert not (checkout / "dev.state.json").exists()
    there.up("--expect-no-changes")

    returned = run_documented_steps(moving(steps, shlex.quote(shared_url), FILE_PLACEHOLDER),
                                checkout, env)
    assert returned.returncode == 0, returned.stdout + returned.stderr
    assert local_file.exists() and stack_file not in object_store.keys(f"{prefix}/")
    here.up("--expect-no-changes")
    verdict = inventory.judge(before, inventory.take(emulator, ("finance",)), local_objects(),
                              f"{PROJECT}/dev/")
    assert verdict.problems == []


def moving(steps: str, source: str, target: str) -> str:
    """The documented steps from the backend `source` to `target`."""
    return (steps.replace(FILE_PLACEHOLDER, "\0source").replace(SHARED_PLACEHOLDER, "\0target")
            .replace("\0source", source).replace("\0target", target))


def unchanged_of_six_kinds() -> int:
    """What a no-op up of the six kinds' stack counts: its objects, the stack, the
    WorkspaceAuth component and its provider."""
    return sum(len(items) for items in local_objects().values()) + 3


def write_local_objects(path: Path) -> None:
    """Declares the local stack's objects in an environment file (the emulator has what
    they refer to), keeping its connection and encrypted secret."""
    document = yaml.safe_load(path.read_text())
    config = {k: v for k, v in document["config"].items()
              if k.removeprefix("workspace:") not in object_lists()}
    config.update({f"workspace:{k}": v for k, v in local_objects().items()})
    config["workspace:wireForm"] = "legacy"
    document["config"] = config
    path.write_text(yaml.safe_dump(document))


def run_documented_steps(steps: str, checkout: Path, env: dict[str, str]
                         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-e", "-u", "-c", steps], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=900)


def preview_principal(emulator: EmulatorInfo) -> str:
    """The emulator's `github-previewer` (a federation policy for the preview-dev
    environment's OIDC tokens) made a member of the workspace, not an admin: its client id."""
    data = json.loads((REPO_ROOT / "workspace_emulator" / "initial_data.json").read_text())
    [client_id] = [a["client_id"] for a in data["identity"]["applications"]
                   if a["display_name"] == "github-previewer"]
    response = requests.post(
        f"{emulator.base_url}/api/2.0/preview/scim/v2/ServicePrincipals",
        headers={"Authorization": f"Bearer {fetch_token(emulator)}"},
        json={"applicationId": client_id, "displayName": "github-previewer"}, timeout=30)
    assert response.status_code in (200, 201, 409), response.text
    return client_id


def test_pull_request_workflow_previews_dev_on_the_shared_backend(
    tmp_path: Path, emulator: EmulatorInfo, object_store: ObjectStore
) -> None:
    """The `preview` job of .github/workflows/preview.yml for `dev`, its steps read from the
    file: the offline check, `pulumi preview --diff` and `--json` against the shared backend
    (the environment's variable and secret it names), the Markdown summary. `make setup` is
    what the test command already ran. The preview signs in as the stack's read-only
    preview principal through the job's OIDC token (the emulator stands in for GitHub's
    token service), never as the deploying principal, and with no workspace secret."""
    checkout = checkout_like(tmp_path / "checkout")
    backend_url = object_store.backend_url("ci")
    cli = environment_stack(checkout, "dev", emulator, backend_url=backend_url,
                            extra_env=object_store.env())
    previewer = preview_principal(emulator)
    cli.set_config("workspace:previewClientId", previewer)
    values, _ = file_values(REPO_ROOT / "Pulumi.dev.yaml")
    declared = sum(len(values.get(key) or []) for key in object_lists())  # none: 0
    summary_page = tmp_path / "step-summary.md"
    runner_env = {k: v for k, v in cli.env().items()
                  if k not in ("PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE")}
    runner_env["GITHUB_STEP_SUMMARY"] = str(summary_page)
    # What GitHub gives a job with `id-token: write` (the SDK appends `&audience=`).
    runner_env["ACTIONS_ID_TOKEN_REQUEST_URL"] = emulator.github_oidc_request_url
    runner_env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = emulator.github_oidc_request_token
    context = {"matrix": {"stack": "dev"}, "vars": {"PULUMI_BACKEND_URL": backend_url},
               "secrets": {"PULUMI_CONFIG_PASSPHRASE": LOCAL_PASSPHRASE}}
    clear_request_log(emulator)

    steps = run_workflow_steps("preview", ["Check", "Preview", "Summarise"], checkout,
                               context, runner_env)
    assert list(steps) == ["Check the stack's config offline", "Preview", "Summarise"]
    for name, result in steps.items():
        assert result.returncode == 0, (name, result.stdout + result.stderr)
    assert steps["Check the stack's config offline"].stdout.strip() == "Pulumi.dev.yaml: ok"
    diff = steps["Preview"].stdout
    # the objects, stack, auth and its provider, the account's auth and its provider
    assert f"+ {declared + 5} to create" in diff
    assert "nightly-etl-dev" in diff
    preview = json.loads((checkout / "preview.json").read_text())
    assert preview["changeSummary"]["create"] == declared + 5
    summary = (checkout / "summary-dev.md").read_text()
    assert summary.startswith("### Pulumi preview: `dev`")
    # the objects and the two WorkspaceAuth components (the summary leaves out the stack and
    # the providers)
    assert f"**{declared + 2} to create**" in summary
    assert "| `+` create | `nightly-etl-dev` | Job |" in summary
    assert summary_page.read_text() == summary
    for text in (diff, summary, steps["Preview"].stderr):
        assert emulator.client_secret not in text
    calls = request_log(emulator)
    assert [e for e in calls if e["service"] == "platform"
            and e["method"] != "GET"] == []  # a preview writes nothing
    # every token (and any call) is the preview principal's, got with the job's OIDC token
    tokens = [e for e in calls if e["path"].endswith("/oauth2/token")]
    assert tokens and {e["client"] for e in calls if e["client"]} == {previewer}
    assert any(e["path"] == "/github-actions/idtoken" for e in calls)
    assert object_store.keys("ci/.pulumi/locks/") == []  # and takes no lock

    # without the environment's variable the job stops at the offline check, and says so
    (checkout / "preview.json").unlink()
    context["vars"] = {}
    steps = run_workflow_steps("preview", ["Preview", "Summarise"], checkout, context,
                               runner_env)
    assert all(r.returncode == 0 for r in steps.values())
    assert "checked offline only" in (checkout / "summary-dev.md").read_text()
