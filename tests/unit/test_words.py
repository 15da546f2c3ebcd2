"""'seed' is a retired word. It named three things, each of which has a name that says what
it is now: the emulator's starting objects are its initial data
(workspace_emulator/initial_data.json), a fixed source of randomness is a random state
(`--random-state`, `--fault-random-state`), and the original specification's spelling of the
API is the legacy wire form (`workspace:wireForm: legacy`, `WireForm.LEGACY`, the legacy
form's nesting; the public service's, `public`, is the default).

`seed` survives as the deprecated alias of `legacy`, which stack files and programs written
before may still say: only on a line that says it is deprecated, in the tests of the alias
and of stacks deployed before, and inside the emulator (workspace_emulator/), whose own name
for the legacy form it still is (its stored jobs record `settings_form: "seed"`)."""

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
# The legacy wire form by its retired name (`enterpriseEdition` is no seed).
WIRE_FORM_SEED = re.compile(r"(?<![a-z])seed|SEED|Seed")
# Where it is not retired: the emulator's own name of the form; the tests of the alias and of
# stacks deployed before; what an emulator stored before.
EMULATOR = "workspace_emulator/"
ALIAS_FILES = {"tests/unit/test_wire_form_default.py", "tests/e2e/test_wire_form_upgrade.py"}
ALIAS_ALLOWED = {("tests/emulator/test_jobs_stored_before.py",
                  'old_job["settings_form"] = "seed"  # the emulator\'s name of the legacy form')}
DEPRECATED = re.compile(r"deprecated", re.IGNORECASE)
THIS_FILE = Path(__file__).resolve()


def _text_files() -> list[Path]:
    files = []
    for folder, dirs, names in os.walk(REPO_ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
        files += [Path(folder, name) for name in names
                  if Path(name).suffix in TEXT_SUFFIXES or name in TEXT_NAMES]
    return files


def test_seed_means_neither_initial_data_nor_a_random_state() -> None:
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
        "randomness:\n" + "\n".join(found)
    )


def test_the_specifications_wire_form_is_legacy() -> None:
    found = []
    for path in _text_files():
        name = path.relative_to(REPO_ROOT).as_posix()
        if path.resolve() == THIS_FILE or name.startswith(EMULATOR) or name in ALIAS_FILES:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if (
                WIRE_FORM_SEED.search(line)
                and not DEPRECATED.search(line)
                and (name, line.strip()) not in ALIAS_ALLOWED
            ):
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == [], (
        "the specification's wire form is 'legacy' (WireForm.LEGACY, the legacy form's "
        "nesting); 'seed' only as its deprecated alias, on a line that says so:\n"
        + "\n".join(found)
    )


def test_the_pattern_catches_the_retired_spellings() -> None:
    retired = ["a seeded cluster", "seeds 1-5", "load_seed(None)", "workspace_emulator/seed.json",
               "from workspace_emulator.seed import x",
               "--seed 1", "--fault-seed 3", "fault_seed=1",
               "set_faults(info, seed=7)", "seed_applications()", "SeedError"]
    wire_form = ["workspace:wireForm: seed", "WireForm.SEED", "the seed nesting",
                 "seed_inputs(name)", "seed_job_body(name)", "SEED_BODY", "seed = dict(public)",
                 "connection_config(info, \"seed\")", "the seed form", "TestSixKindsInTheSeedForm",
                 "JOB_FIELDS_IN_SEED_CLUSTER"]
    assert [text for text in retired if not RETIRED.search(text)] == []
    assert [text for text in wire_form if RETIRED.search(text)] == []
    assert [text for text in wire_form if not WIRE_FORM_SEED.search(text)] == []
    assert not WIRE_FORM_SEED.search("gitLabEnterpriseEdition")
    assert DEPRECATED.search("`seed` (deprecated) still means `legacy`")
    assert DEPRECATED.search('DEPRECATED_LEGACY_NAME = "seed"')


def test_the_initial_data_ships_as_package_data() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["workspace_emulator"]
    path = default_initial_data_path()
    assert path.is_file()
    assert any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns), patterns
