"""What looks like a credential in what adopt would write into files a team commits (issue
41, M10): the settings of an adopted item and the content it exports.

Only the kinds' declared secret fields are secrets to the engine; a storage key in a
cluster's `spark_conf`, a password in `spark_env_vars`, a token in a task's parameters or
in a notebook's source would otherwise be written as read, then show in previews, the state
and the pull-request summary. Adopt refuses such an object (`credential_problem`), naming
where the value is and never the value itself, with the remedy: the value in a secret scope,
referenced as `{{secrets/<scope>/<key>}}`.

Two tests, each cheap and without a network call:

- a value whose form is a known credential's (`PATTERNS`: a personal access token, an AWS
  access key id, a private key block, an Azure storage account key or shared access
  signature, a GitHub token), in any setting or in exported content;
- a setting named like a credential (`looks_like_credential_name`: password, secret,
  token, key, credential, sas, ...) in a map of settings or parameters (`NAMED_SETTINGS`:
  spark_conf, spark_env_vars, a task's parameters, a job's parameter defaults, a pipeline's
  configuration and parameters), whose value is not a secret reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from stacks.errors import NAMESPACE

# Known credential forms, by what they are (the words a refusal uses).
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a personal access token (dapi...)", re.compile(r"\bdapi[0-9a-f]{32}(?:-\d+)?\b")),
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("an Azure storage account key (AccountKey=)",
     re.compile(r"AccountKey=[A-Za-z0-9+/]{20,}={0,2}")),
    ("an Azure shared access signature (sig=)",
     re.compile(r"(?:SharedAccessSignature=|[?&]sig=)[A-Za-z0-9%+/=]{16,}")),
    ("a GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
)
# The maps whose keys name what their values are: Spark's settings, a cluster's environment,
# a task's or a job's parameters.
NAMED_SETTINGS = frozenset({
    "spark_conf", "spark_env_vars", "base_parameters", "named_parameters", "parameters",
    "notebook_params", "python_named_params", "job_parameters", "sql_params",
    "configuration",  # a pipeline's: Spark settings, as a cluster's spark_conf
})
# The words of a setting's name that say it holds a credential.
CREDENTIAL_WORDS = frozenset({
    "password", "passwd", "pwd", "secret", "secrets", "token", "tokens", "key", "keys",
    "credential", "credentials", "sas", "apikey", "accesskey", "secretkey", "privatekey",
    "accountkey", "passphrase", "signature", "sig",
})
# A reference the service resolves to a secret scope's value where it runs the setting.
SECRET_REFERENCE = re.compile(r"\{\{\s*secrets/[^/{}\s]+/[^/{}\s]+\s*\}\}")
# Values that say how something is configured, never a credential.
_FLAGS = frozenset({"", "true", "false", "none", "null"})
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_OPTION = re.compile(r"^-{0,2}([A-Za-z][\w.-]*)=(.*)$", re.DOTALL)
REMEDY = (
    "put the value in a secret scope and reference it as `{{secrets/<scope>/<key>}}` "
    "(a task reads it with dbutils.secrets.get), change the object in the workspace so, "
    "and adopt again"
)


@dataclass(frozen=True)
class Finding:
    """Where a credential seems to be (a setting's path, a file's line) and what it seems to
    be; never the value."""

    where: str
    what: str


def looks_like_credential_name(name: str) -> bool:
    """`fs.azure.account.key.lake.dfs.core.windows.net`, `DB_PASSWORD`, `apiToken`: yes;
    `spark.sql.shuffle.partitions`, `client.id`: no."""
    words = {word.lower() for word in _WORD.findall(name)}
    joined = re.sub(r"[^a-z0-9]", "", name.lower())
    return bool(words & CREDENTIAL_WORDS) or any(
        joined.endswith(word) for word in ("apikey", "accesskey", "secretkey", "password")
    )


def is_secret_reference(value: str) -> bool:
    """Whether the value is nothing but secret references (`{{secrets/scope/key}}`)."""
    return bool(SECRET_REFERENCE.search(value)) and not SECRET_REFERENCE.sub("", value).strip()


def credential_forms(text: str) -> list[str]:
    """What known credential forms `text` holds (`PATTERNS`), each once."""
    return [what for what, pattern in PATTERNS if pattern.search(text)]


def in_settings(item: Mapping[str, Any], skip: Iterable[str] = ()) -> list[Finding]:
    """Every credential-like value of an item's settings, but the fields `skip` (the kind's
    declared secret fields), by path (`job_clusters[0].new_cluster.spark_conf[...]`)."""
    skipped = set(skip)
    found: list[Finding] = []
    for key, value in item.items():
        if key not in skipped:
            found += _walk(value, str(key), named=key in NAMED_SETTINGS)
    return found


def in_content(content: bytes) -> list[Finding]:
    """Every line of exported content holding a known credential form, by line number."""
    text = content.decode("utf-8", errors="replace")
    found: list[Finding] = []
    for number, line in enumerate(text.splitlines(), start=1):
        found += [Finding(f"line {number}", what) for what in credential_forms(line)]
    return found


def credential_problem(
    settings: list[Finding], files: Mapping[str, list[Finding]], audit_key: str, import_id: str
) -> str:
    """The refusal of an object whose settings or content hold what looks like a
    credential: where, what, and the remedy; never the value."""
    places = [f"{f.where} ({f.what})" for f in settings]
    places += [
        f"its content {name}, {f.where} ({f.what})" for name, found in files.items() for f in found
    ]
    return (
        "holds what looks like a credential outside the kind's secret fields, which adopt "
        "would write into files you commit (and the state and previews would show): "
        f"{'; '.join(places)}. Review it: {REMEDY}; or leave the object out "
        f"(`{NAMESPACE}:auditIgnore` {audit_key}:{import_id})"
    )


def _walk(value: Any, path: str, *, named: bool) -> Iterator[Finding]:
    if isinstance(value, str):
        yield from (Finding(path, what) for what in credential_forms(value))
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            where = f"{path}[{str(key)!r}]" if named else f"{path}.{key}"
            if named and isinstance(inner, str | int | float) and _named_credential(key, inner):
                yield Finding(where, "a setting named like a credential")
                continue
            yield from _walk(inner, where, named=named or key in NAMED_SETTINGS)
    elif isinstance(value, list):
        if named:
            yield from _in_arguments(value, path)
        for index, inner in enumerate(value):
            yield from _walk(inner, f"{path}[{index}]", named=False)


def _in_arguments(values: list[Any], path: str) -> Iterator[Finding]:
    """A parameter list: `{name, default}` entries (a job's parameters) and command-line
    arguments (`--password=x`, `--token x`, `key=value`)."""
    for index, entry in enumerate(values):
        where = f"{path}[{index}]"
        if isinstance(entry, Mapping) and "name" in entry:
            default = entry.get("default")
            if isinstance(default, str) and _named_credential(entry["name"], default):
                yield Finding(f"{where}.default", "a parameter named like a credential")
        elif isinstance(entry, str):
            option = _OPTION.match(entry)
            if option and _named_credential(option[1], option[2]):
                yield Finding(where, "an argument named like a credential")
            elif entry.startswith("-") and index + 1 < len(values):
                following = values[index + 1]
                if isinstance(following, str) and not following.startswith("-") \
                        and _named_credential(entry.lstrip("-"), following):
                    yield Finding(f"{path}[{index + 1}]", "an argument named like a credential")


def _named_credential(name: Any, value: Any) -> bool:
    text = str(value).strip()
    return (
        looks_like_credential_name(str(name))
        and text.lower() not in _FLAGS
        and not is_secret_reference(text)
    )
