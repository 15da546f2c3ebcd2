"""Start-up options: flags, EMULATOR_* variables (flags win), validation; the launcher's
command line. No emulator is started here."""

from __future__ import annotations

import pytest

from workspace_emulator.faults import FaultInjector, FaultSettings
from workspace_emulator.options import DEFAULT_PORT, parse_options
from workspace_emulator.testing import emulator_command


def test_defaults():
    options = parse_options([], env={})
    assert options.port == DEFAULT_PORT
    assert str(options.data_dir) == ".emulator" and not options.in_memory
    assert options.transition_seconds == 3.0 and options.token_lifetime == 3599
    assert options.faults == FaultSettings() and options.rate_limit is None


def test_environment_is_read_and_flags_win():
    env = {"EMULATOR_PORT": "9000", "EMULATOR_IN_MEMORY": "true",
           "EMULATOR_TRANSITION_SECONDS": "0.5", "EMULATOR_FAULT_PATHS": "/a/*, /b",
           "EMULATOR_RATE_LIMIT": "20", "EMULATOR_TOKEN_LIFETIME": "60"}
    options = parse_options([], env=env)
    assert options.port == 9000 and options.in_memory
    assert options.transition_seconds == 0.5 and options.token_lifetime == 60
    assert options.faults.paths == ("/a/*", "/b") and options.rate_limit == 20
    assert parse_options(["--port", "0"], env=env).port == 0


def test_after_write_faults_from_flag_or_environment():
    assert not parse_options([], env={}).faults.after_write
    assert parse_options(["--fault-after-write"], env={}).faults.after_write
    assert parse_options([], env={"EMULATOR_FAULT_AFTER_WRITE": "1"}).faults.after_write
    settings = FaultSettings(rate_500=0.5, rate_429=0.5, after_write=True, random_state=1)
    injector = FaultInjector(settings)
    decisions = [injector.decide("/x") for _ in range(100)]
    assert {d.label for d in decisions} == {"429", "500 after write"}
    assert all(d.after_write == (d.status == 500) for d in decisions)


@pytest.mark.parametrize("env", [{"EMULATOR_PORT": "x"}, {"EMULATOR_FAULT_RATE_429": "2"},
                                 {"EMULATOR_RATE_LIMIT": "0"}])
def test_bad_environment_values_exit(env):
    with pytest.raises(SystemExit) as exit_info:
        parse_options([], env=env)
    assert exit_info.value.code == 2


def test_fault_draws_repeat_with_a_fixed_random_state():
    settings = FaultSettings(rate_429=0.3, rate_500=0.3, rate_drop=0.1, random_state=4)
    injector_a, injector_b = FaultInjector(settings), FaultInjector(settings)
    labels_a = [injector_a.decide("/x").label for _ in range(200)]
    labels_b = [injector_b.decide("/x").label for _ in range(200)]
    assert labels_a == labels_b
    assert {"429", "500", "drop", None} == set(labels_a)


def test_faults_skip_admin_paths_and_respect_globs():
    injector = FaultInjector(FaultSettings(rate_500=1.0, paths=("/api/2.0/jobs/*",)))
    assert injector.decide("/api/2.0/jobs/list").status == 500
    assert injector.decide("/api/2.0/clusters/list").status is None
    assert FaultInjector(FaultSettings(rate_500=1.0)).decide("/_emulator/faults").status is None


def test_launcher_command_line():
    command = emulator_command({"fault_rate_500": 0.1, "fault_paths": ["/a", "/b"]})
    assert command[1:3] == ["-m", "workspace_emulator"]
    assert "--in-memory" in command and ["--port", "0"] == command[3:5]
    assert command[command.index("--fault-paths") + 1] == "/a,/b"
    assert "--in-memory" not in emulator_command({"data_dir": "/tmp/x"})
