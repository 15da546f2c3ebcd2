"""`pulumi-analyzer-policy-python`: the analyzer plugin through which an engine runs a Python
policy pack (the guardrails), installed with the package as a console script.

The engine looks for it among the project's plugins (Pulumi.yaml `plugins.analyzers`, name
`policy-python`, path the virtualenv's bin/ as an absolute path: the engine starts it in the
pack's directory) or on PATH (the project's commands and workflows put the virtualenv's bin/
last on it), with the engine's address, the pack's program (`.`) and its runtime options.
Pulumi's release archives bundle a shell script of that name; an engine built from source (the
project's, tools/engine) has none, and this one needs no download: the pack runs in this
interpreter, the project's virtualenv, with the pulumi SDK's runner of policy programs.
"""

from __future__ import annotations

import runpy
import sys


def main() -> None:
    engine, program = sys.argv[1:3] if len(sys.argv) >= 3 else ("", "")
    if not engine:
        sys.exit("usage: pulumi-analyzer-policy-python <engine-address> <policy-pack-dir>")
    sys.argv = [sys.argv[0], engine, program]  # the runner takes exactly these two
    runpy.run_module("pulumi.policy", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
