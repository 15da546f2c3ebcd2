"""IpAccessList: a labelled allow or block list of IPv4 addresses and CIDR ranges.

Every field changes in place. The lists count only while the workspace's IP access list
feature is on; the service then refuses (`INVALID_STATE`) a create or change that would
block the caller's own address, and the error says so before anything changes. Labels need
not be unique, so a create is never repeated blindly: after an answer that leaves open
whether the list was made, a list with the declared label, type and addresses is adopted.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, StrictBool, field_validator

from providers.client import InvalidState
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.validators import not_blank
from providers.workspace.ip_access_lists_api import IpAccessListsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# For all lists of a workspace together; a CIDR range counts once.
MAX_ADDRESSES = 1000


def address_problem(value: str) -> str | None:
    """Why `value` is not an IPv4 address or CIDR range the service takes, or None."""
    try:
        network = ipaddress.ip_network(value, strict=False)
    except ValueError:
        return f"{value!r} is not an IPv4 address or CIDR range (e.g. 10.0.0.1 or 10.0.0.0/16)"
    if network.version != 4:
        return f"{value!r} is IPv6; IP access lists take IPv4 only"
    if "/" in value and str(network) != value:
        return f"{value!r} has host bits set; write the range as {network}"
    return None


class IpAccessListModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str
    list_type: Literal["ALLOW", "BLOCK"]
    ip_addresses: list[str]
    enabled: StrictBool = True

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        return not_blank(value)

    @field_validator("ip_addresses")
    @classmethod
    def _addresses(cls, value: list[str]) -> list[str]:
        problems = [
            f"[{index}] {problem}"
            for index, address in enumerate(value)
            if (problem := address_problem(address))
        ]
        if problems:
            raise ValueError("; ".join(problems))
        repeated = sorted({a for a in value if value.count(a) > 1})
        if repeated:
            raise ValueError(f"lists {', '.join(map(repr, repeated))} more than once")
        if len(value) > MAX_ADDRESSES:
            raise ValueError(f"holds {len(value)} entries; a workspace takes {MAX_ADDRESSES}")
        return value


class IpAccessListProvider(WorkspaceProvider):
    args_model = IpAccessListModel
    replace_keys: ClassVar[frozenset[str]] = frozenset()

    def spec(self, args: IpAccessListModel) -> Spec:
        # The addresses are a set: their order is no change.
        return {**args.model_dump(mode="json"), "ip_addresses": sorted(args.ip_addresses)}

    def create_object(self, client: WorkspaceClient, args: IpAccessListModel, spec: Spec):
        def create() -> dict[str, Any]:
            return IpAccessListsApi(client).create(
                spec["label"], spec["list_type"], spec["ip_addresses"]
            )

        with _explained():
            made, _adopted = create_or_adopt(create, lambda: self._find(client, spec))
            list_id = str(made["list_id"])
            if not spec["enabled"] and made.get("enabled", True):
                # Lists are made enabled: a disabled one is switched off after.
                IpAccessListsApi(client).update(list_id, {"enabled": False})
                made = IpAccessListsApi(client).get(list_id)
        return list_id, self._spec_of(made), self._computed(made)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = IpAccessListsApi(client).get(id_)
        return self._spec_of(found), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        with _explained():
            IpAccessListsApi(client).update(id_, dict(spec))
        found = IpAccessListsApi(client).get(id_)
        return self._spec_of(found), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        IpAccessListsApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @classmethod
    def _find(cls, client: WorkspaceClient, spec: Spec) -> dict | None:
        """A list just like the declared one (what a lost answer to a create leaves)."""
        like = {k: spec[k] for k in ("label", "list_type", "ip_addresses")}
        return next(
            (
                item
                for item in IpAccessListsApi(client).list()
                if {k: cls._spec_of(item)[k] for k in like} == like
            ),
            None,
        )

    @staticmethod
    def _spec_of(found: Mapping[str, Any]) -> Spec:
        return {
            "label": found.get("label"),
            "list_type": found.get("list_type"),
            "ip_addresses": sorted(found.get("ip_addresses") or []),
            "enabled": found.get("enabled", True),
        }

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {"address_count": found.get("address_count")}


@contextlib.contextmanager
def _explained() -> Iterator[None]:
    """Adds what to do to the service's refusal of a list that would block the caller."""
    try:
        yield
    except InvalidState as error:
        error.message += (
            " (the list would block the address this deployment calls from: add that "
            "address to an enabled ALLOW list, leave it out of BLOCK lists, or declare "
            "the list with enabled: false)"
        )
        error.args = (str(error),)
        raise


# An address range for documentation (RFC 5737) the drill adds to a list.
DRILL_ADDRESS = "198.51.100.0/24"


KIND = declare(
    name="IpAccessList",
    provider=IpAccessListProvider,
    outputs={"address_count": int},
    config_key="ipAccessLists",
    identity=("label",),
    doc="docs/ip-access-list.md",
    summary="an ALLOW or BLOCK list of IPv4 addresses and CIDR ranges, changed in place",
    import_id="list id",
    import_id_rule=import_ids.one_segment,
    stack_output=("ip_access_lists", lambda resource: resource.id),
    inventory=lambda client: (
        (str(item["list_id"]), str(item.get("label", "")))
        for item in IpAccessListsApi(client).list()
    ),
    drill=DrillChange(
        lambda item: {**item, "ip_addresses": [*item["ip_addresses"], DRILL_ADDRESS]}
    ),
)
