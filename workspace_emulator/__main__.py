import sys

from workspace_emulator.cli import main

sys.exit(main())
