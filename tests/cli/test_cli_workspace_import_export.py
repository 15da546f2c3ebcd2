"""`databricks workspace mkdirs`, `import` (`--file`, `--content`, SOURCE with a language,
AUTO, `--overwrite`), `export` (standard output, `--file`, `--format`), `get-status`,
`list` and `delete` (`--recursive`) against the emulator, with the service's refusals."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from tests.cli.cli import Cli
from tests.emulator.support import unique

NOTEBOOK = "# Databricks notebook source\nprint('from the CLI')\n"


def test_import_a_notebook_from_a_file_and_export_it(cli: Cli, tmp_path: Path) -> None:
    folder = f"/Shared/{unique('cli')}"
    assert cli.ok("workspace", "mkdirs", folder) is None
    source = tmp_path / "etl.py"
    source.write_text("print('from the CLI')\n")
    _, sent = cli.sent("workspace", "import", f"{folder}/etl", "--file", str(source),
                       "--format", "SOURCE", "--language", "PYTHON")
    [request] = [x for x in sent if x.method == "POST"]
    assert request.path == "/api/2.0/workspace/import"
    assert request.body["format"] == "SOURCE" and request.body["language"] == "PYTHON"

    status = cli.ok("workspace", "get-status", f"/Workspace{folder}/etl")
    assert (status["object_type"], status["language"], status["path"]) == (
        "NOTEBOOK", "PYTHON", f"{folder}/etl")
    printed = cli.run("workspace", "export", f"{folder}/etl")
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == NOTEBOOK  # the service's export starts with the header
    exported = tmp_path / "exported.py"
    assert cli.ok("workspace", "export", f"{folder}/etl", "--file", str(exported)) is None
    assert exported.read_text() == NOTEBOOK
    as_json = cli.ok("workspace", "export", f"{folder}/etl", "--format", "JUPYTER")
    assert as_json["file_type"] == "ipynb"
    assert json.loads(base64.b64decode(as_json["content"]))["cells"][0]["source"] == [
        "print('from the CLI')"]
    cli.ok("workspace", "delete", folder, "--recursive")


def test_auto_import_content_list_and_overwrite(cli: Cli, tmp_path: Path) -> None:
    folder = f"/Shared/{unique('cli')}"
    cli.ok("workspace", "mkdirs", f"{folder}/lib")
    headed = tmp_path / "job.py"
    headed.write_text(NOTEBOOK)
    cli.ok("workspace", "import", f"{folder}/job.py", "--file", str(headed), "--format", "AUTO")
    plain = base64.b64encode(b"X = 1\n").decode()
    cli.ok("workspace", "import", f"{folder}/lib/helpers.py", "--content", plain,
           "--format", "AUTO")
    listed = {o["path"]: o["object_type"] for o in cli.ok("workspace", "list", folder)}
    assert listed == {f"{folder}/job": "NOTEBOOK", f"{folder}/lib": "DIRECTORY"}
    [helpers] = cli.ok("workspace", "list", f"{folder}/lib")
    assert (helpers["object_type"], helpers["size"]) == ("FILE", 6)

    taken = cli.fails("workspace", "import", f"{folder}/lib/helpers.py", "--content", plain,
                      "--format", "RAW")
    assert (taken.status, taken.message) == (400, "Node named 'helpers.py' already exists")
    newer = base64.b64encode(b"X = 2\n").decode()
    cli.ok("workspace", "import", f"{folder}/lib/helpers.py", "--content", newer,
           "--format", "RAW", "--overwrite")
    again = cli.ok("workspace", "get-status", f"{folder}/lib/helpers.py")
    assert again["object_id"] == helpers["object_id"] and again["size"] == 6
    cli.ok("workspace", "delete", folder, "--recursive")


def test_refusals(cli: Cli, tmp_path: Path) -> None:
    folder = f"/Shared/{unique('cli')}"
    cli.ok("workspace", "mkdirs", f"{folder}/sub")
    content = base64.b64encode(b"print(1)").decode()
    no_parent = cli.fails("workspace", "import", f"{folder}/none/nb", "--content", content,
                          "--language", "PYTHON")
    assert (no_parent.status, no_parent.message) == (
        404, f"The parent folder ({folder}/none) does not exist.")
    # SOURCE without a language is read as a zip archive: the CLI adds its hint.
    no_language = cli.fails("workspace", "import", f"{folder}/nb", "--content", content)
    assert no_language.status == 400 and "Please specify a language" in no_language.message
    not_empty = cli.fails("workspace", "delete", folder)
    assert (not_empty.status, not_empty.message) == (400, f"Folder ({folder}) is not empty.")
    missing = cli.fails("workspace", "get-status", f"{folder}/nothing")
    assert (missing.status, missing.message) == (404, f"Path ({folder}/nothing) doesn't exist.")
    gone = cli.fails("workspace", "export", f"{folder}/nothing")
    assert gone.status == 404
    cli.ok("workspace", "delete", folder, "--recursive")
    assert cli.fails("workspace", "list", folder).status == 404
