"""The SDK's service modules load on first use, without the package's `__init__`, and stay
whole when a provider host's threads first ask for several at once. Each check runs in a
fresh interpreter: this one has loaded the modules already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

# Threads that first ask for a module at the same moment, as a host's workers do when a
# refresh reads a job, a cluster and a permission together: some through `service`, some
# through the module attributes the kinds import.
CONCURRENT_FIRST_USES = """
import json, sys, threading, traceback
from providers.client import sdk_services

NAMES = ["jobs", "compute", "iam", "sql", "workspace", "catalog", "jobs", "compute"]
barrier = threading.Barrier(len(NAMES) + 2)
errors, got = [], {}

def by_service(index, name):
    barrier.wait()
    try:
        got[index] = sdk_services.service(name).__name__
    except BaseException:
        errors.append(traceback.format_exc())

def by_attribute(index, name):
    barrier.wait()
    try:
        got[index] = getattr(sdk_services, name).__name__
    except BaseException:
        errors.append(traceback.format_exc())

threads = [threading.Thread(target=by_service, args=(i, n)) for i, n in enumerate(NAMES)]
threads += [threading.Thread(target=by_attribute, args=(100 + i, n))
            for i, n in enumerate(["jobs", "compute"])]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
complete = sys.modules["databricks.sdk.service.jobs"].JobSettings.__name__
print(json.dumps({"errors": errors, "got": sorted(set(got.values())), "complete": complete,
                  "package_left": "databricks.sdk" in sys.modules}))
"""


def run_fresh(code: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True,
        timeout=120, check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def test_concurrent_first_uses_each_get_the_whole_module() -> None:
    # Three fresh interpreters: the loads race differently each time.
    for _ in range(3):
        outcome = run_fresh(CONCURRENT_FIRST_USES)
        assert outcome["errors"] == []
        assert outcome["got"] == [
            f"databricks.sdk.service.{name}"
            for name in sorted(["catalog", "compute", "iam", "jobs", "sql", "workspace"])
        ]
        assert outcome["complete"] == "JobSettings"
        # The stand-in package is gone again: a later `import databricks.sdk` runs its own
        # `__init__`.
        assert outcome["package_left"] is False


def test_a_module_loads_only_where_first_asked_for() -> None:
    code = (
        "import json, sys\n"
        "from providers.client import sdk_services\n"
        "before = 'databricks.sdk.service.jobs' in sys.modules\n"
        "from providers.client.sdk_services import compute\n"
        "print(json.dumps({'before': before,\n"
        "                  'jobs': 'databricks.sdk.service.jobs' in sys.modules,\n"
        "                  'compute': compute.__name__}))\n"
    )
    outcome = run_fresh(code)
    assert outcome == {"before": False, "jobs": False, "compute": "databricks.sdk.service.compute"}


def test_a_later_import_of_the_package_runs_its_own_init() -> None:
    code = (
        "import json, sys\n"
        "from providers.client.sdk_services import jobs\n"
        "import databricks.sdk\n"
        "print(json.dumps({'client': hasattr(databricks.sdk, 'WorkspaceClient'),\n"
        "                  'same': sys.modules['databricks.sdk.service.jobs'] is jobs}))\n"
    )
    assert run_fresh(code) == {"client": True, "same": True}
