"""The rules of compute settings that a cluster, a cluster policy and a job's clusters
share: what a cluster spec and a library may hold, checked offline with each problem's
path."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator

from providers.client.sdk_services import compute
from providers.core.sdk_schema import ClassRules

# PEP 508 distribution name, optional extras, and one exact (wildcard-free) version.
PYPI_PIN = re.compile(
    r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
    r"(?:\[[A-Za-z0-9._-]+(?:,[A-Za-z0-9._-]+)*\])?"
    r"==[A-Za-z0-9][A-Za-z0-9.+!_-]*$"
)


Loc = tuple[int | str, ...]


Found = Iterator[tuple[Loc, str]]  # problems as (location, reason)


def _field_names(sdk_class: type, *, leave_out: Iterable[str] = ()) -> tuple[str, ...]:
    skip = set(leave_out)
    return tuple(f.name for f in dataclasses.fields(sdk_class) if f.name not in skip)


LIBRARY_KINDS = _field_names(compute.Library)


INIT_SCRIPT_KINDS = _field_names(compute.InitScriptInfo)


LOG_DESTINATION_KINDS = _field_names(compute.ClusterLogConf)


URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")


# Where each kind of init script or log destination lives.
STORAGE_PREFIXES = {
    "workspace": ("/", "workspace:/"),
    "volumes": ("/Volumes/", "dbfs:/Volumes/"),
    "dbfs": ("dbfs:/",),
    "abfss": ("abfss://",),
    "s3": ("s3://", "s3a://"),
    "gcs": ("gs://",),
    "file": ("file:/",),
}


STORAGE_EXAMPLES = {
    "workspace": "/Workspace/Shared/init.sh",
    "volumes": "/Volumes/main/default/scripts/init.sh",
    "dbfs": "dbfs:/init/install.sh",
    "abfss": "abfss://container@account.dfs.core.windows.net/init.sh",
    "s3": "s3://bucket/init.sh",
    "gcs": "gs://bucket/init.sh",
    "file": "file:/my/local/file.sh",
}


def _pinned(package: str) -> str:
    if not PYPI_PIN.match(package):
        raise ValueError("must pin one exact version as name==version (e.g. 'requests==2.32.3')")
    return package


def _workers_in_order(autoscale: Any) -> None:
    low, high = autoscale.min_workers, autoscale.max_workers
    if low is not None and high is not None and low > high:
        raise ValueError(f"min_workers ({low}) must not exceed max_workers ({high})")


# Rules on compute classes hold wherever a cluster is declared (a Cluster kind reuses them).
COMPUTE_RULES: dict[str, ClassRules] = {
    "PythonPyPiLibrary": ClassRules(fields={"package": Annotated[str, AfterValidator(_pinned)]}),
    # The service refuses an autoscale range without its upper end.
    "AutoScale": ClassRules(required=("max_workers",), validators=(_workers_in_order,)),
}


def _one_of(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _given(obj: Any, names: Iterable[str]) -> list[str]:
    return [name for name in names if getattr(obj, name, None) is not None]


def library_problems(library: Any, loc: Loc) -> Found:
    kinds = _given(library, LIBRARY_KINDS)
    if len(kinds) != 1:
        yield from _exactly_one(library, LIBRARY_KINDS, loc, "library kind")
        return
    kind = kinds[0]
    value = getattr(library, kind)
    if kind in ("whl", "jar", "egg") and not (value.startswith("/") or URI.match(value)):
        yield (
            (*loc, kind),
            (
                f"give an absolute workspace or volume path (e.g. '/Volumes/main/libs/x.{kind}') "
                f"or a URI (e.g. 's3://bucket/x.{kind}'), got {value!r}"
            ),
        )
    elif kind == "requirements" and not value.startswith("/"):
        yield (
            (*loc, kind),
            "give a workspace or volume path, e.g. '/Workspace/Shared/requirements.txt'",
        )
    elif kind == "maven" and len([p for p in value.coordinates.split(":") if p]) < 3:
        yield (
            (*loc, "maven", "coordinates"),
            (
                "give group:artifact:version (e.g. 'org.jsoup:jsoup:1.7.2'), "
                f"got {value.coordinates!r}"
            ),
        )


def cluster_problems(cluster: Any, loc: Loc) -> Found:
    yield from _range(cluster.num_workers, (*loc, "num_workers"), 0)
    if cluster.autoscale is not None:
        yield from _range(cluster.autoscale.min_workers, (*loc, "autoscale", "min_workers"), 0)
        yield from _range(cluster.autoscale.max_workers, (*loc, "autoscale", "max_workers"), 1)
    elif cluster.num_workers is None and cluster.policy_id is None:
        # A policy may fix the size; without one the service needs it.
        yield (
            loc,
            "give num_workers (e.g. 2; 0 for a single node) or autoscale {min_workers, "
            "max_workers}",
        )
    for index, script in enumerate(cluster.init_scripts or []):
        yield from _storage_problems(
            script, INIT_SCRIPT_KINDS, (*loc, "init_scripts", index), "init script destination"
        )
    if cluster.cluster_log_conf is not None:
        yield from _storage_problems(
            cluster.cluster_log_conf,
            LOG_DESTINATION_KINDS,
            (*loc, "cluster_log_conf"),
            "log destination",
        )


def _storage_problems(storage: Any, kinds: Sequence[str], loc: Loc, what: str) -> Found:
    given = _given(storage, kinds)
    if len(given) != 1:
        yield from _exactly_one(storage, kinds, loc, what)
        return
    kind = given[0]
    destination = getattr(storage, kind).destination
    prefixes = STORAGE_PREFIXES.get(kind)
    if prefixes and not any(
        destination.startswith(prefix) and len(destination) > len(prefix) for prefix in prefixes
    ):
        yield (
            (*loc, kind, "destination"),
            (
                f"a {kind} destination starts with {_one_of([repr(p) for p in prefixes])}, "
                f"e.g. {STORAGE_EXAMPLES[kind]!r}; got {destination!r}"
            ),
        )


def _exactly_one(obj: Any, names: Sequence[str], loc: Loc, what: str) -> Found:
    given = _given(obj, names)
    if not given:
        yield loc, f"give one {what}: {_one_of(names)}"
    elif len(given) > 1:
        yield loc, f"gives {len(given)} ({', '.join(given)}); give exactly one {what}"


def _range(value: int | None, loc: Loc, low: int, high: int | None = None, note: str = "") -> Found:
    if value is None or (value >= low and (high is None or value <= high)):
        return
    bound = f"between {low} and {high}" if high is not None else f"at least {low}"
    yield loc, f"must be {bound}{f' ({note})' if note else ''}, got {value}"
