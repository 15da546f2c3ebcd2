# The two commands a newcomer needs:
#   make demo   set up, start the local emulator, `pulumi up` the `local` stack, print outputs
#   make test   set up and run every test (unit, emulator, providers, end to end on the real engine)
# Everything they need is installed by `make setup`: the project virtualenv (.venv) and the
# pinned Pulumi engine, built once per machine from the Go module proxy (tools/engine).
# `make test` also builds the service's own CLI the same way (tools/databricks_cli), which
# the CLI compatibility tests (tests/cli) drive against the emulator.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup engine databricks-cli test demo demo-down lint audit

setup: $(VENV)/.installed engine

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

engine:
	@tools/engine/ensure.sh >/dev/null

databricks-cli:
	@tools/databricks_cli/ensure.sh >/dev/null

test: setup databricks-cli
	$(BIN)/pytest

demo: setup
	$(BIN)/python -m stacks.demo up

demo-down: setup
	$(BIN)/python -m stacks.demo down

# Jobs, principals and scopes in STACK's workspace that no stack manages (docs/audit.md).
# Exit 1 when there are some. For the local stack the demo's emulator must be running.
STACK ?= local
audit: setup
	$(BIN)/python -m stacks.audit --stack $(STACK) $(AUDIT_FLAGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy providers emulator stacks tools bench tests
