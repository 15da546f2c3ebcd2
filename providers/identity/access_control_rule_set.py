"""AccessControlRuleSet: who holds the roles on a service principal: its user role (may run
jobs as it, use it) and its manager role (may change it and this rule set). The rule set is
the account access-control service's, reached through the workspace's proxy.

Authoritative: the declared grant rules are the whole rule set. A role or principal held
that is not declared is removed by the next up (the preview names it); destroy empties the
rule set (admins keep their powers; a principal already gone counts as emptied).

The rule set is named `accounts/<account id>/servicePrincipals/<application id>/ruleSets/
default`, declared whole as `rule_set_name`, or as `account_id` with `service_principal_id` (the
workspace's id of the principal: what a reference to a `servicePrincipals` item of the
stack gives), from which the create reads the application id. The name is an output
either way, and the resource's id; another principal replaces the resource.

Every write is the service's etag handshake: the rule set is PUT with the etag of the
version it was read at (the one a refresh or the last write recorded, an output), and the
service refuses it when someone changed the rule set since (RESOURCE_CONFLICT). Then the
rule set is read again and the write is tried once more with the new etag: the declared
rules win, as an authoritative kind's must, but never over a version nobody read.

The service gives a principal's creator its manager role: a new principal's rule set holds
that one rule. The audit and adopt leave such a rule set out where the creator is the
principal they sign in as, the stack's (`rule_sets_with_rules`): the rule came with the
principal. A create replaces it like any rule, and its preview warns, naming each
principal that loses a role (`check` reads the rule set; a principal the same up creates is
predicted to hold its creator's rule), as an update's diff does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pulumi
import pydantic
from pulumi.dynamic import CheckResult
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from providers.client import Connection, WorkspaceError, is_gone
from providers.client.auth_type import AuthType
from providers.core.kind import Adoption, DrillChange, Reference, declare
from providers.core.lifecycle import (
    CONNECTION_KEY,
    KeyedDiffResult,
    Spec,
    WorkspaceProvider,
    contains_unknown,
    user_inputs,
)
from providers.identity.access_control_api import AccessControlApi
from providers.identity.service_principals_api import ServicePrincipalsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

USER_ROLE = "roles/servicePrincipal.user"
MANAGER_ROLE = "roles/servicePrincipal.manager"
Role = Literal["roles/servicePrincipal.user", "roles/servicePrincipal.manager"]
NAME = re.compile(
    r"accounts/(?P<account>[A-Za-z0-9-]+)/servicePrincipals/"
    r"(?P<application>[A-Za-z0-9-]+)/ruleSets/default"
)
PRINCIPAL = re.compile(r"(users|groups|servicePrincipals)/\S.*")
STALE_ETAG = "RESOURCE_CONFLICT"
# The rule set's name (`name` in the service's calls: a stack item's `name` is its resource
# name, so the kind says rule_set_name).
NAME_KEY = "rule_set_name"


def _rule_set_name(value: str) -> str:
    if not NAME.fullmatch(value):
        raise ValueError(
            "must be accounts/<account id>/servicePrincipals/<application id>/ruleSets/default "
            "(or give account_id and service_principal_id instead)"
        )
    return value


def _principal(value: str) -> str:
    if not PRINCIPAL.fullmatch(value):
        raise ValueError(
            "must be users/<user name>, groups/<group name> or "
            "servicePrincipals/<application id>"
        )
    return value


def _not_blank(value: str) -> str:
    if not value.strip() or "/" in value:
        raise ValueError("must not be empty, nor hold '/'")
    return value


class GrantRuleModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    principals: list[Annotated[str, AfterValidator(_principal)]] = Field(min_length=1)

    @model_validator(mode="after")
    def _each_principal_once(self) -> GrantRuleModel:
        repeated = sorted({p for p in self.principals if self.principals.count(p) > 1})
        if repeated:
            raise ValueError(f"principals: {', '.join(repeated)} listed more than once")
        return self


class AccessControlRuleSetModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule_set_name: Annotated[str, AfterValidator(_rule_set_name)] | None = None
    account_id: Annotated[str, AfterValidator(_not_blank)] | None = None
    service_principal_id: Annotated[str, AfterValidator(_not_blank)] | None = None
    grant_rules: list[GrantRuleModel] = Field(default_factory=list)

    @model_validator(mode="after")
    def _named_once(self) -> AccessControlRuleSetModel:
        parts = (self.account_id is not None, self.service_principal_id is not None)
        if self.rule_set_name is not None and any(parts):
            raise ValueError(
                "give rule_set_name, or account_id with service_principal_id, not both"
            )
        if self.rule_set_name is None and not all(parts):
            missing = "account_id" if not parts[0] else "service_principal_id"
            raise ValueError(
                f"{missing}: required (or give the rule set's whole rule_set_name): the rule "
                "set is named by rule_set_name, or by account_id with service_principal_id"
            )
        roles = [r.role for r in self.grant_rules]
        repeated = sorted({r for r in roles if roles.count(r) > 1})
        if repeated:
            raise ValueError(
                f"grant_rules: {', '.join(repeated)} given more than once; list its "
                "principals in one rule"
            )
        return self


def normal_rules(rules: Any) -> list[dict[str, Any]]:
    """Grant rules in one form: sorted by role, each rule's principals sorted, no empty
    rule."""
    found = []
    for rule in rules or []:
        principals = sorted(set(rule.get("principals") or []))
        if principals:
            found.append({"role": rule["role"], "principals": principals})
    return sorted(found, key=lambda r: r["role"])


def rule_set_name(account_id: str, application_id: str) -> str:
    return f"accounts/{account_id}/servicePrincipals/{application_id}/ruleSets/default"


def application_of(name: str) -> str:
    """The application id of the principal a rule set (by name) is of."""
    match = NAME.fullmatch(name)
    return match["application"] if match is not None else name


def caller_name(client: Any) -> str | None:
    """How a rule set names the principal the client signs in as (SCIM Me): a service
    principal `servicePrincipals/<application id>` (the service's Me gives it as the
    userName too, a user's being an email address), a user `users/<user name>`; None where
    the workspace does not say."""
    try:
        me = client.me()
    except WorkspaceError:
        return None
    user_name = str(me.get("userName") or "")
    if me.get("applicationId") or (user_name and "@" not in user_name):
        return f"servicePrincipals/{me.get('applicationId') or user_name}"
    return f"users/{user_name}" if user_name else None


# The sign-in methods whose client id is the signing-in service principal's application id.
SIGNS_IN_AS_ITS_CLIENT_ID = frozenset({
    AuthType.AZURE_CLIENT_SECRET, AuthType.OAUTH_M2M, AuthType.AZURE_MSI,
    AuthType.GITHUB_OIDC, AuthType.GITHUB_OIDC_AZURE,
})


def signed_in_principal(connection: Mapping[str, Any]) -> str | None:
    """How a rule set names the principal a connection signs in as, where the connection
    says without a call (`servicePrincipals/<client id>`); None where only the workspace
    could tell (a personal token, a user's CLI sign-in)."""
    try:
        signed_in = Connection.from_props(connection)
    except (pydantic.ValidationError, ValueError, TypeError):
        return None
    if signed_in.method in SIGNS_IN_AS_ITS_CLIENT_ID and signed_in.client_id:
        return f"servicePrincipals/{signed_in.client_id}"
    return None


def creator_rule(creator: str) -> dict[str, Any]:
    """The rule the service writes into a new principal's rule set: its creator manages it."""
    return {"role": MANAGER_ROLE, "principals": [creator]}


def only_a_creator_rule(rules: list[dict[str, Any]], creator: Callable[[], str | None]) -> bool:
    """Whether normal `rules` are exactly the creator rule of `creator()` (asked only where
    the rules have that shape)."""
    return (
        len(rules) == 1
        and rules[0]["role"] == MANAGER_ROLE
        and len(rules[0]["principals"]) == 1
        and rules[0]["principals"][0] == creator()
    )


def rule_sets_with_rules(client: Any) -> Iterator[tuple[str, str]]:
    """(rule set name, principal's display name) of every service principal whose rule set
    holds a rule of someone's writing: not one nobody wrote (empty: a principal of the
    emulator's initial data), nor one holding only the creator rule of the principal the
    client signs in as (the stack's, which creates the stack's principals): the service
    wrote it with the principal, which the stack holds. One list of the principals, one
    read per principal, one SCIM Me where a rule set holds a single manager; nothing where
    the account is not known."""
    account_id = client.account_id
    if not account_id:
        return
    known: list[str | None] = []

    def creator() -> str | None:
        if not known:
            known.append(caller_name(client))
        return known[0]

    for principal in ServicePrincipalsApi(client).list():
        application_id = principal.get("applicationId")
        if not application_id:
            continue
        name = rule_set_name(account_id, str(application_id))
        rules = normal_rules(AccessControlApi(client).get_rule_set(name).get("grant_rules"))
        if rules and not only_a_creator_rule(rules, creator):
            yield name, str(principal.get("displayName") or application_id)


def losses(held: list[dict[str, Any]], declared: list[dict[str, Any]]) -> list[str]:
    """`<principal> (<role>)` of every role a principal holds that the declared rules do not
    give it: what writing them takes away."""
    given = {(r["role"], p) for r in declared for p in r["principals"]}
    return [
        f"{p} ({r['role']})"
        for r in normal_rules(held)
        for p in r["principals"]
        if (r["role"], p) not in given
    ]


class AccessControlRuleSetProvider(WorkspaceProvider):
    args_model = AccessControlRuleSetModel
    replace_keys = frozenset({"account_id", "service_principal_id"})

    def spec(self, args: AccessControlRuleSetModel) -> Spec:
        # The name is no part of the spec: declared, it is compared in `diff`; composed
        # from the principal, it is an output.
        spec: Spec = {"grant_rules": normal_rules([r.model_dump() for r in args.grant_rules])}
        if args.account_id is not None:
            spec["account_id"] = args.account_id
            spec["service_principal_id"] = args.service_principal_id
        return spec

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        """As any kind's; for a create, also a warning naming each role the declared rules
        take from the rule set as it is (the preview shows no diff of a create)."""
        result = super().check(olds, news)
        if not result.failures and not user_inputs(olds):
            self._warn_of_losses(news)
        return result

    def describe_changes(self, result, recorded, desired, news, olds) -> None:
        if "grant_rules" not in result.changed_keys or result.replaces:
            return
        lost = losses(recorded.get("grant_rules") or [], desired["grant_rules"])
        if lost:
            result.field_changes = [f"grant_rules: {who} removed (not declared)" for who in lost]
            result.detailed_paths = {"grant_rules": "update"}
            pulumi.log.warn(f"rule set {olds.get(NAME_KEY) or ''}: {replaced_words(lost)}")

    def diff(self, _id, olds, news, old_inputs=None) -> KeyedDiffResult:
        declared = news.get(NAME_KEY)
        result = super().diff(_id, olds, news, old_inputs)
        if declared is None:
            return result
        if contains_unknown(declared) or declared != olds.get(NAME_KEY):
            result.changes = True
            result.changed_keys = sorted({*result.changed_keys, NAME_KEY})
            result.replaces = sorted({*(result.replaces or []), NAME_KEY})
        return result

    def create_object(self, client: WorkspaceClient, args: AccessControlRuleSetModel, spec: Spec):
        name = args.rule_set_name or self._name_of(
            client, args.account_id, args.service_principal_id
        )
        written = self._write(client, name, spec["grant_rules"], etag=None)
        return name, self._observed(written, spec), self._computed(written)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = AccessControlApi(client).get_rule_set(id_)
        observed = self._observed(found, recorded)
        if "grant_rules" not in recorded:  # an import: the principal's parts too
            match = NAME.fullmatch(id_)
            if match is not None:
                listed = ServicePrincipalsApi(client).list(
                    f'applicationId eq "{match["application"]}"'
                )
                if listed:
                    observed["account_id"] = match["account"]
                    observed["service_principal_id"] = str(listed[0]["id"])
        return observed, self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        written = self._write(client, id_, spec["grant_rules"], etag=recorded.get("etag"))
        return self._observed(written, spec), self._computed(written)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        self._write(client, id_, [], etag=recorded.get("etag"))

    # --- helpers ------------------------------------------------------------------
    def _warn_of_losses(self, news: Mapping[str, Any]) -> None:
        """Warns, before a create, of the roles it takes away: those the rule set holds, or,
        where its principal is made by the same up (its id unknown yet), the creator rule the
        service will have written (the caller's). Unknown inputs or no connection: nothing
        to tell yet; a failed read is said, never taken for an empty rule set."""
        inputs = user_inputs(news)
        if contains_unknown({k: v for k, v in inputs.items() if k != "service_principal_id"}):
            return
        if not isinstance(news.get(CONNECTION_KEY), Mapping):
            return
        try:
            args = self.args_model.model_validate(
                {k: v for k, v in inputs.items() if not contains_unknown(v)}
                | ({"service_principal_id": "unknown"}
                   if contains_unknown(inputs.get("service_principal_id")) else {}))
        except pydantic.ValidationError:
            return
        declared = self.spec(args)["grant_rules"]
        if contains_unknown(inputs.get("service_principal_id")):
            # No call: a preview of new objects reads nothing of the workspace.
            self._warn_of_the_creators_rule(news, declared)
            return
        try:
            client = self._client(news)
            where = args.rule_set_name or self._name_of(
                client, args.account_id, args.service_principal_id)
            held = AccessControlApi(client).get_rule_set(where).get("grant_rules") or []
        except (WorkspaceError, OSError, ValueError) as error:
            if isinstance(error, WorkspaceError) and is_gone(error):
                return  # no such principal: the create fails, saying so
            pulumi.log.warn(
                f"could not read the rule set this create replaces ({error}): the declared "
                "grant_rules replace whatever it holds; compare them with the rule set "
                "before the up")
            return
        lost = losses(held, declared)
        if lost:
            pulumi.log.warn(f"{where}: {replaced_words(lost)}")

    @staticmethod
    def _warn_of_the_creators_rule(news: Mapping[str, Any], declared: list[dict[str, Any]]
                                   ) -> None:
        """Warns that the declared rules replace the manager rule the service gives the
        creator of the principal the same up makes: the deployer, named where its sign-in
        says who it is (a service principal signing in with its application id)."""
        where = "the rule set of the principal this update creates"
        creator = signed_in_principal(news[CONNECTION_KEY])
        if creator is None:
            pulumi.log.warn(
                f"{where}: the service gives the principal's creator (the deployer) its "
                f"{MANAGER_ROLE} role, and the declared grant_rules replace the whole rule "
                "set (declare the deployer's rule to keep it)")
            return
        lost = losses([creator_rule(creator)], declared)
        if lost:
            pulumi.log.warn(f"{where}: {replaced_words(lost)}")

    @staticmethod
    def _name_of(client: WorkspaceClient, account_id: Any, principal_id: Any) -> str:
        application_id = ServicePrincipalsApi(client).get(str(principal_id))["applicationId"]
        return rule_set_name(str(account_id), str(application_id))

    @staticmethod
    def _write(
        client: WorkspaceClient, name: str, rules: list[dict[str, Any]], etag: str | None
    ) -> dict[str, Any]:
        """PUT the rules at `etag` (read first where none is known); a stale etag is read
        again and the write tried once more."""
        api = AccessControlApi(client)
        if etag is None:
            etag = api.get_rule_set(name)["etag"]
        try:
            return api.update_rule_set(name, rules, etag)
        except WorkspaceError as error:
            if error.code != STALE_ETAG:
                raise
        return api.update_rule_set(name, rules, api.get_rule_set(name)["etag"])

    @staticmethod
    def _observed(found: Mapping[str, Any], like: Mapping[str, Any]) -> Spec:
        observed: Spec = {"grant_rules": normal_rules(found.get("grant_rules"))}
        for key in ("account_id", "service_principal_id"):
            if key in like:
                observed[key] = like[key]
        return observed

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {NAME_KEY: found.get("name"), "etag": found.get("etag")}


def replaced_words(lost: list[str]) -> str:
    return (
        f"{'; '.join(lost)} lose(s) the role: not in the declared grant_rules, which replace "
        "the whole rule set (declare them to keep them)"
    )


def _drill_change(rule_set: dict[str, Any]) -> dict[str, Any]:
    """The manager role for the workspace's `admins` group added, or taken away where the
    rule set grants it already: an update in place."""
    rules = rule_set.get("grant_rules") or []
    manager = "roles/servicePrincipal.manager"
    if any(rule["role"] == manager for rule in rules):
        rule_set["grant_rules"] = [rule for rule in rules if rule["role"] != manager]
    else:
        rule_set["grant_rules"] = [*rules, {"role": manager, "principals": ["groups/admins"]}]
    return rule_set


KIND = declare(
    name="AccessControlRuleSet",
    provider=AccessControlRuleSetProvider,
    config_key="accessControlRuleSets",
    identity=(NAME_KEY,),
    references={
        "service_principal": Reference(
            target_key="servicePrincipals", field="service_principal_id"
        )
    },
    doc="docs/access-control-rule-set.md",
    summary="the roles on a service principal (user, manager), the whole rule set",
    import_id="the rule set name, accounts/<account>/servicePrincipals/<app id>/ruleSets/default",
    # The rule set's name, and the etag of the version last read or written.
    outputs={NAME_KEY: str, "etag": str},
    # The rule set of every service principal whose rule set holds any rule, where the
    # account is known (`AccessControlApi.account_id`); the stack's own principal's is
    # left out like the principal.
    inventory=lambda client: rule_sets_with_rules(client),
    adoption=Adoption(principal_of=application_of),
    drill=DrillChange(_drill_change),
)
