"""`workspace-emulator` / `python -m workspace_emulator`."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Sequence

from workspace_emulator.extra import EmulatorExtraMissing, require_emulator_extra
from workspace_emulator.options import parse_options


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_options(argv)  # before the heavy imports: a bad flag fails fast
    try:
        require_emulator_extra()
    except EmulatorExtraMissing as exc:
        print(f"workspace-emulator: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        stream=sys.stderr, level=options.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from workspace_emulator.data_dir_lock import DataDirInUse
    from workspace_emulator.initial_data import InitialDataError
    from workspace_emulator.runner import serve

    try:
        return asyncio.run(serve(options))
    except DataDirInUse as exc:
        print(f"workspace-emulator: cannot start: {exc}", file=sys.stderr)
        return 1
    except InitialDataError as exc:
        print(f"workspace-emulator: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"workspace-emulator: cannot start: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
