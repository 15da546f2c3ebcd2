"""The modern leg's own tests (`make test-modern`): they run only under the modern engine
(WORKSPACE_IAC_ENGINE=modern), in its virtualenv; the main leg does not collect them."""

from stacks.pulumi_cli import engine_kind

collect_ignore_glob = [] if engine_kind() == "modern" else ["test_*.py"]
