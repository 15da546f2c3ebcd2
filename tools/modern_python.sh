#!/usr/bin/env bash
# Prints the interpreter for the modern test leg's virtualenv (.venv-modern): Python 3.13,
# or 3.12 where the machine has no 3.13 (on PATH, or installed by pyenv). Says so loudly when
# it falls back, and when neither is there (then python3, whatever it is: the leg still runs
# the newest SDK under the newest engine, but not on the newest Python).
set -euo pipefail

find_python() {
    local version="$1" candidate
    # A pyenv shim answers `command -v` also for a version it does not activate: run it.
    if "python$version" -c 'import sys; print(sys.executable)' 2>/dev/null; then
        return 0
    fi
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/"python$version"; do
        if [ -x "$candidate" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

warn() { printf '\n*** modern test leg: %s ***\n\n' "$*" >&2; }

if find_python 3.13; then
    exit 0
fi
if find_python 3.12; then
    warn "no Python 3.13 on this machine; the modern leg runs on Python 3.12"
    exit 0
fi
warn "neither Python 3.13 nor 3.12 on this machine; the modern leg runs on $(python3 --version)"
command -v python3
