# The two commands a newcomer needs:
#   make demo   set up, start the local emulator, `pulumi up` the `local` stack, print outputs
#   make test   set up and run every test (unit, emulator, providers, end to end on the real engine)
# Everything they need is installed by `make setup`: the project virtualenv (.venv) and the
# pinned Pulumi engine, built once per machine from the Go module proxy (tools/engine).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup engine test demo demo-down lint

setup: $(VENV)/.installed engine

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

engine:
	@tools/engine/ensure.sh >/dev/null

test: setup
	$(BIN)/pytest

demo: setup
	$(BIN)/python -m stacks.demo up

demo-down: setup
	$(BIN)/python -m stacks.demo down

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy providers emulator
