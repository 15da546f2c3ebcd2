# The two commands a newcomer needs:
#   make demo   set up, start the local emulator, `pulumi up` the `local` stack, print outputs
#   make test   set up and run every test: the main leg (unit, emulator, providers, end to end
#               on the lock-step engine), then the modern leg (make test-modern)
# and the quick loop while changing code:
#   make check  the unit, client, provider and emulator tests: no engine, no Go build, only
#               the virtualenv (minutes; the tests marked `engine`, `cli` or `slow` are left out)
# Everything they need is installed by `make setup` and `make setup-modern`: the project
# virtualenv (.venv: the lock-step pins of constraints.txt, installed from requirements.lock
# with their hashes) and the pinned Pulumi engine, the
# modern leg's virtualenv (.venv-modern: the newest pulumi SDK on Python 3.13) and the newest
# engine the Go module proxy builds; each engine built once per machine (tools/engine).
# `make test` also builds the service's own CLI the same way (tools/databricks_cli), which
# the CLI compatibility tests (tests/cli) drive against the emulator.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

# The package installs `providers` and `workspace_emulator` only; the project's own
# virtualenvs also reach the checkout's stack program, tools, bench and tests (a path entry),
# from any directory, as the engine's language host and the drills need.
checkout_on_path = echo "$(CURDIR)" > "$$($(1)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/workspace-iac-checkout.pth"

.PHONY: setup lock engine databricks-cli setup-modern check test test-modern demo demo-down lint audit adopt

setup: $(VENV)/.installed engine

# Every package comes from requirements.lock, each checked against the hashes recorded there
# (--require-hashes: a file whose hash is not listed is refused, and so is a package the lock
# does not pin), the build backend included; then the project itself, which has no hash, as
# an editable install that fetches nothing (--no-deps, --no-build-isolation).
$(VENV)/.installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	$(call checkout_on_path,$(BIN))
	touch $@

# requirements.lock from constraints.txt (the versions) and pyproject.toml (what `.[dev]` and
# the editable build need), with the hashes of every release file of each version: run it
# after changing either, and commit the three together (tests/unit/test_requirements_lock.py
# checks they agree). pip-tools runs from a virtualenv of its own, thrown away after; the
# project's own entry (a path, which has no hash) is left out of the lock.
PIP_TOOLS_VERSION := 7.7.0
lock:
	@tmp="$$(mktemp -d)" && trap 'rm -rf "$$tmp"' EXIT && \
	$(PYTHON) -m venv "$$tmp" && \
	"$$tmp/bin/python" -m pip install --quiet pip-tools==$(PIP_TOOLS_VERSION) && \
	"$$tmp/bin/pip-compile" --quiet --no-header --generate-hashes --allow-unsafe --strip-extras \
		--extra dev --build-deps-for editable --constraint constraints.txt --no-emit-find-links \
		--output-file requirements.lock pyproject.toml && \
	awk -f tools/lock_header.awk requirements.lock > "$$tmp/lock" && mv "$$tmp/lock" requirements.lock

engine:
	@tools/engine/ensure.sh >/dev/null

databricks-cli:
	@tools/databricks_cli/ensure.sh >/dev/null

# The modern leg: the newest pulumi SDK on the newest Python the machine has (3.13, else
# 3.12: tools/modern_python.sh says so), the package installed beside it as a user installs
# it, under the newest engine (WORKSPACE_IAC_ENGINE=modern), programs run inline through the
# Automation API. Its tests: tests/modern, and the end-to-end scenarios of MODERN_E2E, every
# test of them, those marked `modern_leg` too (the main leg leaves those out: a scenario's
# legacy wire form runs on this engine, its public form on the main leg's; docs/testing.md).
MODERN_VENV := .venv-modern
MODERN_BIN := $(MODERN_VENV)/bin
MODERN_E2E := tests/e2e/test_six_kinds.py tests/e2e/test_import.py tests/e2e/test_state_size.py \
	tests/e2e/test_preview_summary.py tests/e2e/test_local_stack.py \
	tests/e2e/test_replace.py tests/e2e/test_coexistence.py tests/e2e/test_adopt.py \
	tests/e2e/test_warnings.py tests/e2e/test_domain_packages_upgrade.py \
	tests/e2e/test_guardrails.py tests/e2e/test_split_stacks.py tests/e2e/test_job_upgrade.py \
	tests/e2e/test_job_permissions_upgrade.py tests/e2e/test_fleet.py

setup-modern: $(MODERN_VENV)/.installed
	@WORKSPACE_IAC_ENGINE=modern tools/engine/ensure.sh >/dev/null

$(MODERN_VENV)/.installed: pyproject.toml
	"$$(tools/modern_python.sh)" -m venv $(MODERN_VENV)
	$(MODERN_BIN)/python -m pip install --quiet --upgrade pip
	$(MODERN_BIN)/python -m pip install --quiet -e '.[dev]'
	$(call checkout_on_path,$(MODERN_BIN))
	touch $@

# The tests in parallel (pytest-xdist): one test file at a time per worker (a file's module-
# and class-scoped emulators and a scenario's steps stay in one process), the files in the
# order collected (tests/conftest.py puts the long ones, on the engine or `slow`, first).
# `make check` runs a worker per core; `make test`'s main leg four (most of its time is the
# engine's and the emulators' processes, which wait on each other: four workers keep two
# cores busy).
# The modern leg two, as its files' inline programs run in the workers' own processes.
# A four-worker run collects and runs every test (xdist knows a test by its id: a repeated
# id fails the collection). `TEST_WORKERS=0`, `MODERN_WORKERS=0` or `CHECK_WORKERS=0` runs in
# one process.
CHECK_WORKERS ?= auto
TEST_WORKERS ?= 4
MODERN_WORKERS ?= 2
XDIST := --dist loadfile --no-loadscope-reorder
# The tests start hundreds of Python processes (workers, emulators, provider hosts, programs):
# each reads the project's modules, and pytest its rewritten tests, from bytecode written
# once, also where the environment says to write none (an empty value is unset for Python).
check test test-modern: export PYTHONDONTWRITEBYTECODE :=

# The quick loop: every test but those on the engine (`engine`), those driving the service's
# CLI (`cli`, tests/cli), so nothing is built with Go and no engine runs, and the few long
# ones (`slow`: the OpenAPI fuzz run, a third of the rest's CPU).
check: $(VENV)/.installed
	$(BIN)/pytest -n $(CHECK_WORKERS) $(XDIST) -m "not engine and not cli and not slow"

test: setup databricks-cli
	$(BIN)/pytest -n $(TEST_WORKERS) $(XDIST) -m "not modern_leg"
	$(MAKE) test-modern

test-modern: setup-modern
	$(MODERN_BIN)/python -m pip install --quiet --upgrade pulumi databricks-sdk  # the newest SDKs, every run
	WORKSPACE_IAC_ENGINE=modern $(MODERN_BIN)/pytest -n $(MODERN_WORKERS) $(XDIST) tests/modern $(MODERN_E2E)

demo: setup
	$(BIN)/python -m stacks.demo up

demo-down: setup
	$(BIN)/python -m stacks.demo down

# `workspace-iac` (docs/command.md) on this checkout's project, as on any other project.
# Jobs, principals and scopes in STACK's workspace that no stack manages (docs/audit.md).
# Exit 1 when there are some. For the local stack the demo's emulator must be running.
STACK ?= local
audit: setup
	$(BIN)/workspace-iac audit --stack $(STACK) $(AUDIT_FLAGS)

# Take STACK's workspace over as it is (docs/adopt.md): every object no stack manages, written
# into Pulumi.$(STACK).yaml with its import id; the next `pulumi up` imports them, writing
# nothing. ADOPT_FLAGS: --dry-run, --kind KIND, --match KIND:GLOB, --ignore KIND:PATTERN.
adopt: setup
	$(BIN)/workspace-iac adopt --stack $(STACK) $(ADOPT_FLAGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy providers workspace_emulator stacks tools bench tests
