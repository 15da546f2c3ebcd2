"""The old home of the platform's models, before each moved into its area's package
(platform/areas/<domain>/<area>/). Only the names the tests of tests/emulator import from here stay,
re-exported; new code imports from the area."""
