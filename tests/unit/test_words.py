"""'seed' names one thing only: the original specification's wire form (`workspace:wireForm:
seed`, `WireForm.SEED`, the seed nesting). The emulator's starting objects are its initial
data (workspace_emulator/initial_data.json), and a fixed source of randomness is a random state
(`--random-state`, `--fault-random-state`). These tests keep the other two meanings out."""

from __future__ import annotations

import fnmatch
import os
import re
import tomllib
from pathlib import Path

from stacks.pulumi_cli import REPO_ROOT
from workspace_emulator.initial_data import default_initial_data_path

TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".cfg", ".ini", ".txt"}
TEXT_NAMES = {"Makefile"}
SKIPPED_DIRS = {".git", ".venv", ".venv-modern", "__pycache__", ".pytest_cache", ".ruff_cache",
                ".mypy_cache", ".import_linter_cache", ".pulumi-state", ".emulator", "build", "out",
                "node_modules"}
# The old spellings of the emulator's initial data and of random seeds.
RETIRED = re.compile(
    r"\bseed(?:ed|s|ing)\b|\breseeds?\b|load_seed|seed\.json|emulator[./]seed\b|SeedError"
    r"|seed_applications|add_seeded|fault[_-]seed|--seed\b|\bseed=",
    re.IGNORECASE,
)
# Databases an earlier emulator wrote carry this mark; they must still be read.
ALLOWED = {("workspace_emulator/storage.py", 'LEGACY_INITIALISED_KEY = "seeded"')}
THIS_FILE = Path(__file__).resolve()


def _text_files() -> list[Path]:
    files = []
    for folder, dirs, names in os.walk(REPO_ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
        files += [Path(folder, name) for name in names
                  if Path(name).suffix in TEXT_SUFFIXES or name in TEXT_NAMES]
    return files


def test_seed_means_only_the_wire_form() -> None:
    files = [path for path in _text_files() if path.resolve() != THIS_FILE]
    # the walk reaches workspace_emulator/
    assert any(path.name == "initial_data.py" for path in files)
    found = []
    for path in files:
        name = path.relative_to(REPO_ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if RETIRED.search(line) and (name, line.strip()) not in ALLOWED:
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == [], (
        "say 'initial data' for the emulator's starting objects and 'random state' for fixed "
        "randomness; 'seed' is the wire form only:\n" + "\n".join(found)
    )


def test_the_pattern_catches_the_retired_spellings() -> None:
    retired = ["a seeded cluster", "seeds 1-5", "load_seed(None)", "workspace_emulator/seed.json",
               "from workspace_emulator.seed import x",
               "--seed 1", "--fault-seed 3", "fault_seed=1",
               "set_faults(info, seed=7)", "seed_applications()", "SeedError"]
    wire_form = ["workspace:wireForm: seed", "WireForm.SEED", "the seed nesting",
                 "seed_inputs(name)", "seed_job_body(name)", "SEED_BODY", "seed = dict(public)",
                 "connection_config(info, \"seed\")", "the seed form"]
    assert [text for text in retired if not RETIRED.search(text)] == []
    assert [text for text in wire_form if RETIRED.search(text)] == []


def test_the_initial_data_ships_as_package_data() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["workspace_emulator"]
    path = default_initial_data_path()
    assert path.is_file()
    assert any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns), patterns
