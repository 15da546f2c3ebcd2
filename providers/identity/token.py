"""Token: a personal access token, the deploying principal's own or (`application_id`) one
an admin makes on behalf of a service principal (token management), with its `comment` and
`lifetime_seconds`, and its rotation.

The service shows the value once, in the create's answer: the provider records it as an
output that is always a Pulumi secret (the declaration's `secrets=`), so the state keeps it
encrypted, and a refresh keeps it as recorded. Nothing else carries it: not an error, a log
line or a preview. Every change of comment, lifetime or owner replaces the token; Pulumi
makes the new one before it deletes the old, so a consumer never lacks a valid token. A
new threshold changes in place (it is the stack's own, never sent).

Rotation: with `rotate_before_days`, a diff reads the token's expiry and the service's
time (the Date of the service's answer, so a service whose clock differs from the
deployer's decides), and where less than that many days are left, the next `up` replaces
the token (the new one first, then the old one deleted). A token gone (expired, deleted
outside the stack) is made again by the next `up` after a refresh.

A create whose answer is lost cannot be adopted, since the value came only in that answer:
the tokens that appeared since the create was sent, with the declared comment, are deleted
(no one knows their value) and the create is sent again. Tokens are not adopted either (a
value cannot be read back): a token made outside the stack stays as it is; declare a new
one. The id is the token's id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, field_validator

from providers.client import WorkspaceError
from providers.core.create_or_adopt import create_or_adopt, is_uncertain_create_outcome
from providers.core.kind import Adoption, DrillChange, Reference, declare
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, user_inputs
from providers.identity.tokens_api import INVALID_RESPONSE, TokensApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

VALUE_KEY = "token_value"
ROTATE_KEY = "rotate_before_days"
DAY_SECONDS = 86400
MAX_LIFETIME_SECONDS = 730 * DAY_SECONDS
INFO_FIELDS = ("creation_time", "expiry_time")


class TokenModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    comment: str | None = None
    lifetime_seconds: int | None = None
    # On behalf of this service principal (its application id); none: the deployer's own.
    application_id: str | None = None
    rotate_before_days: int | None = None

    @field_validator("lifetime_seconds")
    @classmethod
    def _lifetime(cls, value: int | None) -> int | None:
        if value is not None and not 0 < value <= MAX_LIFETIME_SECONDS:
            raise ValueError(f"must be a whole number of seconds from 1 to "
                             f"{MAX_LIFETIME_SECONDS} (730 days), e.g. 7776000 for 90 days; "
                             "left out, the workspace's maximum (maxTokenLifetimeDays) or the "
                             "service's default")
        return value

    @field_validator("rotate_before_days")
    @classmethod
    def _threshold(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("must be a whole number of days, at least 1 (the token is "
                             "replaced at the next up once fewer days than this are left)")
        return value

    @field_validator("application_id")
    @classmethod
    def _application(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must be a service principal's application id, or left out for "
                             "a token of the deploying principal")
        return value


class TokenProvider(WorkspaceProvider):
    args_model = TokenModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        {"comment", "lifetime_seconds", "application_id"})
    diff_reads_the_service = True  # the remaining lifetime, by the service's clock

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = TokenModel.model_validate(inputs)
        if (args.rotate_before_days is not None and args.lifetime_seconds is not None
                and args.rotate_before_days * DAY_SECONDS >= args.lifetime_seconds):
            days = args.lifetime_seconds / DAY_SECONDS
            return [(ROTATE_KEY, f"{args.rotate_before_days} days is not less than the "
                     f"token's lifetime ({days:g} days): every up would replace it; give a "
                     "threshold shorter than lifetime_seconds")]
        return []

    def create_object(self, client: WorkspaceClient, args: TokenModel, spec: Spec):
        made = _create(client, args)
        info = made["token_info"]
        computed = {"token_id": str(info["token_id"]), VALUE_KEY: made["token_value"],
                    **{field: info.get(field) for field in INFO_FIELDS}}
        return str(info["token_id"]), spec, computed

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found, _ = TokensApi(client).find(id_, bool(recorded.get("application_id")))
        if found is None:
            return None
        observed: Spec = {key: recorded[key] for key in TokenModel.model_fields
                          if recorded.get(key) is not None}
        if found.get("comment") is not None:
            observed["comment"] = found["comment"]
        made, expires = found.get("creation_time"), found.get("expiry_time")
        if "lifetime_seconds" not in observed and made is not None and expires is not None:
            # An import: the lifetime it was made with, so declaring it is no replacement.
            observed["lifetime_seconds"] = round((int(expires) - int(made)) / 1000)
        computed = {"token_id": id_,
                    # The service never shows it again: as recorded.
                    VALUE_KEY: recorded.get(VALUE_KEY),
                    **{field: found.get(field) for field in INFO_FIELDS}}
        return observed, computed

    def update_object(self, client, id_, recorded, args, spec: Spec):
        # Only the threshold changes in place: the stack's own, never sent to the service.
        computed = {"token_id": id_, VALUE_KEY: recorded.get(VALUE_KEY),
                    **{field: recorded.get(field) for field in INFO_FIELDS}}
        return spec, computed

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        TokensApi(client).delete(id_, bool(recorded.get("application_id")))

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any],
             old_inputs: Mapping[str, Any] | None = None) -> KeyedDiffResult:
        result = super().diff(_id, olds, news, old_inputs)
        if result.replaces:
            return result
        threshold = user_inputs(news).get(ROTATE_KEY)  # the engine's numbers are floats
        if isinstance(threshold, int | float) and not isinstance(threshold, bool) \
                and self._runs_low(_id, olds, float(threshold)):
            result.changed_keys = sorted({*result.changed_keys, ROTATE_KEY})
            result.changes = True
            result.replaces = [ROTATE_KEY]
            result.delete_before_replace = False
        return result

    def _runs_low(self, id_: str, olds: Mapping[str, Any], threshold_days: float) -> bool:
        """Whether fewer than `threshold_days` are left of the token, by the service's clock
        (a token no longer found has none left)."""
        found, now = TokensApi(self._client(olds)).find(id_, bool(olds.get("application_id")))
        if found is None or found.get("expiry_time") is None:
            return True
        return float(found["expiry_time"]) / 1000 - now < threshold_days * DAY_SECONDS


def _create(client: WorkspaceClient, args: TokenModel) -> dict[str, Any]:
    """A new token; a failed create leaves no token behind."""
    area = TokensApi(client)
    on_behalf = args.application_id is not None

    def listed() -> list[dict[str, Any]]:
        return area.list() if on_behalf else area.own()

    before = {str(t.get("token_id")) for t in listed()}

    def discard_unanswered() -> None:
        # Returns nothing to adopt: a token whose value was lost is of no use to anyone.
        for token in listed():
            if str(token.get("token_id")) not in before \
                    and token.get("comment") == args.comment:
                area.delete(str(token["token_id"]), on_behalf)

    try:
        made, _ = create_or_adopt(
            lambda: area.create(args.lifetime_seconds, args.comment, args.application_id),
            discard_unanswered)
    except WorkspaceError as error:
        if is_uncertain_create_outcome(error) or error.code == INVALID_RESPONSE:
            try:
                discard_unanswered()
            except WorkspaceError as cleanup_error:
                error.add_note(f"Deleting a token the failed create may have made failed "
                               f"too: {cleanup_error}")
        raise
    return made


def _tokens(client: Any) -> Any:
    for token in TokensApi(client).list():
        owner = token.get("owner_id") or token.get("created_by_username") or ""
        yield str(token["token_id"]), f"{token.get('comment') or 'token'} ({owner})"


# Another comment replaces the token: a new one, then the old one deleted.
def _drill(item: dict[str, Any]) -> dict[str, Any]:
    return {**item, "comment": f"{item.get('comment') or 'token'} (rotated)"}


KIND = declare(
    name="Token",
    provider=TokenProvider,
    outputs={"token_id": str, VALUE_KEY: str, "creation_time": int, "expiry_time": int},
    config_key="tokens",
    references={
        "application_id": Reference(target_key="servicePrincipals", field="application_id",
                                    in_place=True, output="application_id"),
    },
    doc="docs/token.md",
    summary="a personal access token, the deployer's own or a service principal's, rotated "
    "once its remaining lifetime falls under a threshold (its value a Pulumi secret; every "
    "change replaces it)",
    import_id="the token's id (token_id)",
    secrets=(VALUE_KEY,),
    stack_output=("tokens", lambda token: {"token_id": token.token_id,
                                           "token_value": token.token_value,
                                           "expiry_time": token.expiry_time}),
    inventory=_tokens,
    adoption=Adoption(refused="a token's value cannot be read back from the service: declare "
                      "a new Token in workspace:tokens (its value is a stack output), and "
                      "delete the old one once its users have the new value"),
    drill=DrillChange(_drill),
)
