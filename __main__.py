"""The stack program as Pulumi runs it: Pulumi.yaml names no `main`, so the engine runs the
project directory, and with it this file. With a `main` the pinned 3.79 engine would run the
program, and look for the provider plugin's relative path, from that directory instead.
The program itself is stacks/__main__.py."""

import runpy

runpy.run_module("stacks", run_name="__main__")
