"""Neither the client secret nor any access token the emulator issued appears in plain text
in `pulumi stack export`, the state files on disk, the CLI's output with the engine's most
verbose logging flowed to the providers (-v=9 --logtostderr --logflow), an error's text,
or the emulator's request log. Tokens are recognised by shape and confirmed against the
emulator's hashes of the tokens it issued."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reliability.leaks import issued_token_hashes, leaks
from tools.drills.local_stack import scratch_stack
from workspace_emulator.testing import fetch_token, request_log, running_emulator

pytestmark = pytest.mark.engine

VERBOSE = ("-v=9", "--logtostderr", "--logflow")


def test_no_secret_or_token_in_state_logs_errors_or_request_log(tmp_path: Path) -> None:
    data_dir = tmp_path / "emulator"
    with running_emulator(data_dir=data_dir) as info:
        stack = scratch_stack(tmp_path, info, secret="")  # the secret from config only
        stack.set_config("workspace:clientSecret", info.client_secret, secret=True)
        up = stack.run("up", "--yes", "--skip-preview", "--stack", stack.stack, *VERBOSE)

        # a failing up: the service refuses a branch, and its error text is scanned too
        settings = stack.project_dir / f"Pulumi.{stack.stack}.yaml"
        document = settings.read_text()
        settings.write_text(document.replace("branch: develop", "branch: no-such-branch"))
        failed = stack.run("up", "--yes", "--skip-preview", "--stack", stack.stack, *VERBOSE,
                           check=False)
        assert failed.returncode != 0
        assert "no-such-branch" in failed.stdout + failed.stderr

        token_hashes = issued_token_hashes(data_dir)
        assert token_hashes, "the deployment fetched no token"
        texts = {
            "verbose CLI output of up": up.stdout + up.stderr,
            "verbose CLI output of a failing up": failed.stdout + failed.stderr,
            "stack export": json.dumps(stack.export()),
            "state files": "".join(p.read_text(errors="replace")
                                   for p in stack.state_dir.rglob("*") if p.is_file()),
            "emulator request log": json.dumps(request_log(info)),
        }
        # the detector works: a token fetched now is found by shape and hash
        token = fetch_token(info)
        assert leaks(f"Bearer {token}.", "unused", issued_token_hashes(data_dir))
    found = {where: leaks(text, info.client_secret, token_hashes)
             for where, text in texts.items()}
    assert found == {where: [] for where in texts}
    # the check itself works: the secret is where it must be, encrypted in the config
    assert info.client_secret not in settings.read_text()
    assert "secure:" in settings.read_text()
