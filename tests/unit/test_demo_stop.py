"""`stacks.demo down` stops the emulator it started, and nothing else: a pid file left from
before a reboot may name an unrelated process by then."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from stacks import demo


def started(argv: list[str]) -> subprocess.Popen[bytes]:
    """The process, once its command line shows: a moment after it is started, the kernel may
    still show none (as a pid file is read much later, the demo never meets that moment)."""
    process = subprocess.Popen(argv)
    deadline = time.monotonic() + 10
    while argv[-1] not in demo.command_line(process.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return process


@pytest.fixture
def pid_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "emulator.pid"
    monkeypatch.setattr(demo, "PID_FILE", path)
    return path


def test_a_pid_file_naming_another_process_stops_nothing(pid_file: Path) -> None:
    other = started([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        pid_file.write_text(str(other.pid))
        demo.stop_emulator()
        assert other.poll() is None
        assert not pid_file.exists()
    finally:
        other.kill()
        other.wait()


def test_the_emulator_named_by_the_pid_file_is_stopped(pid_file: Path) -> None:
    # A process whose command line names the emulator's module, as the demo starts it.
    emulator = started([sys.executable, "-c", "import time; time.sleep(30)", "workspace_emulator"])
    try:
        pid_file.write_text(str(emulator.pid))
        demo.stop_emulator()
        assert emulator.wait(timeout=10) != 0
        assert not pid_file.exists()
    finally:
        emulator.kill()


def test_a_pid_file_of_a_process_that_is_gone_is_removed(pid_file: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    pid_file.write_text(str(gone.pid))
    demo.stop_emulator()
    assert not pid_file.exists()
