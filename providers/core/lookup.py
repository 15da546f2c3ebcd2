"""What every domain's lookups share: the failure, the result shape, the Output plumbing
that runs a lookup in a program, and the rules for "exactly one" (providers/lookups/__init__.py
says what a lookup is; each domain's `lookups` module holds its own)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pulumi
from pydantic import BaseModel, ConfigDict

from providers.client import (
    Connection,
    WorkspaceClient,
    WorkspaceError,
    client_for,
    is_gone,
)
from providers.client.blocking import in_thread
from providers.core.ids import parse_int64_id

Result = dict[str, Any]


class LookupFailed(pulumi.RunError):
    """A lookup found nothing, or more than the one object asked for."""


def exactly_one(lookup: str, **keys: Any) -> None:
    given = [name for name, value in keys.items() if value is not None]
    if len(given) != 1:
        names = " or ".join(keys)
        raise LookupFailed(
            f"{lookup}: give {names}" + (f" (got {', '.join(given)})" if given else "")
        )


def lookup_output(
    connection: pulumi.Input[dict], find: Callable[..., Any], **keys: Any
) -> pulumi.Output:
    given = {name: value for name, value in keys.items() if value is not None}

    def run(values: dict[str, Any]) -> Any:
        client = client_for(Connection.from_props(values.pop("connection")))
        return find(client, **values)

    # The connection's secrecy is not passed on (it never leaves `run`); a key's is.
    plain_connection = pulumi.Output.unsecret(pulumi.Output.from_input(connection))
    return pulumi.Output.all(connection=plain_connection, **given).apply(
        lambda values: in_thread(run, dict(values))
    )


def output_read(
    connection: pulumi.Input[dict], provider: Any, resource: Any, output: str
) -> pulumi.Output:
    """An output of a resource of the stack (`provider` its kind's provider), read from the
    service by the resource's id when the program runs: known in a preview that updates
    the resource, whose outputs the engine leaves unknown until the update (the id stays
    known), so what takes it is no change there. The recorded output where the object is
    not found (gone outside the stack: a refresh tells)."""

    def find(client: WorkspaceClient, id_: str) -> Any:
        try:
            found = provider.read_object(client, id_, {})
        except WorkspaceError as error:
            if not is_gone(error):
                raise
            found = None
        return None if found is None else found[1].get(output)

    read = lookup_output(connection, find, id_=resource.id)
    return read.apply(lambda found: getattr(resource, output) if found is None else found)


def only_one(
    client: WorkspaceClient,
    matches: list[dict[str, Any]],
    what: str,
    id_field: str,
    key_of: Callable[[dict[str, Any]], Any] | None = None,
) -> dict[str, Any]:
    if not matches:
        raise found_nothing(client, what)
    if len(matches) > 1:
        ids = ", ".join(repr(key_of(m) if key_of else m.get(id_field)) for m in matches)
        raise LookupFailed(
            f"{len(matches)} objects match: {what} in {client.connection.base_url} "
            f"({ids}); look it up by {id_field}"
        )
    return matches[0]


@contextlib.contextmanager
def nothing_if_gone(client: WorkspaceClient, what: str) -> Iterator[None]:
    """A lookup of an object the service says is gone fails as "no <what>"."""
    try:
        yield
    except WorkspaceError as error:
        if is_gone(error):
            raise found_nothing(client, what) from None
        raise


def found_nothing(client: WorkspaceClient, what: str) -> LookupFailed:
    return LookupFailed(f"no {what} in the workspace {client.connection.base_url}")


def as_id(value: Any, what: str) -> int:
    try:
        return parse_int64_id(value, what)
    except ValueError as exc:
        raise LookupFailed(str(exc)) from None


class LookupResult(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    def as_output(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
