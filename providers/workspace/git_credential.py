"""GitCredential: the Git provider token the deploying principal's Git folders clone and
pull with (a service principal deploying a `Repo` of a private remote needs one).

The token (`personal_access_token`) is always a Pulumi secret: the resource makes it one
if the program gave it in plain text, the state holds it only encrypted among the inputs,
and no output, log line, check failure or error carries it. The outputs keep a salted
digest instead (`token_digest`, a secret too): a changed token is a rotation, an in-place
update (PATCH) of the same credential, never a replacement. The service never returns the
token, so a token changed outside the stack cannot be seen; an import takes the declared
token as the one held (and compares later ones with it).

Every field changes in place. The service allows one credential per principal and Git
provider: a create refused as already existing, or one whose answer was lost, adopts the
principal's credential for that provider where its user name (and name, where declared) is
the declared one, which is what an interrupted run of this resource leaves, and sends the
declared token to it; any other is refused and named (import it, or delete it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, StrictBool, field_validator

from providers.client import AlreadyExists
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.digest import digest, same_value
from providers.core.kind import Adoption, appended_to, declare
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, contains_unknown
from providers.core.validators import not_blank
from providers.workspace.git import GIT_PROVIDERS
from providers.workspace.git_credentials_api import GitCredentialsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

TOKEN_KEY = "personal_access_token"
DIGEST_KEY = "token_digest"
# What the service shows of a credential, in spec form (never the token).
SHOWN = ("git_provider", "git_username", "git_email", "name", "is_default_for_provider")


def provider_spelling(value: str) -> str:
    """The service's spelling of a Git provider named in any case."""
    spelled = {p.lower(): p for p in GIT_PROVIDERS}
    if value.lower() not in spelled:
        raise ValueError(f"must be one of {', '.join(GIT_PROVIDERS)} (any case)")
    return spelled[value.lower()]


class GitCredentialModel(BaseModel):
    """Reasons never quote the token: they say what is wrong with it."""

    model_config = ConfigDict(extra="forbid")

    git_provider: str
    personal_access_token: str
    git_username: str | None = None
    git_email: str | None = None
    name: str | None = None
    is_default_for_provider: StrictBool | None = None

    _provider = field_validator("git_provider")(provider_spelling)

    @field_validator("personal_access_token")
    @classmethod
    def _token(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty: the Git provider's personal access token")
        if value != value.strip():
            raise ValueError("has spaces or line breaks at its ends: give the token alone")
        return value

    @field_validator("git_username", "git_email", "name")
    @classmethod
    def _text(cls, value: str | None) -> str | None:
        return None if value is None else not_blank(value)


class GitCredentialProvider(WorkspaceProvider):
    args_model = GitCredentialModel
    replace_keys: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        provider = str(inputs.get("git_provider", "")).lower()
        if provider == "awscodecommit" and not inputs.get("git_username"):
            return [("git_username", "required for awsCodeCommit (the IAM user's Git name)")]
        return []

    def spec(self, args: GitCredentialModel) -> Spec:
        # The token is no part of the spec: it is compared through its digest (`diff`).
        return args.model_dump(mode="json", exclude_none=True, exclude={TOKEN_KEY})

    def diff(self, _id, olds, news, old_inputs=None) -> KeyedDiffResult:
        result = super().diff(_id, olds, news, old_inputs)
        token = news.get(TOKEN_KEY)
        if contains_unknown(token):
            changed = True
        elif not isinstance(token, str):
            changed = False  # the model's check names it
        else:
            changed = token_changed(olds, old_inputs, token)
        if changed:
            result.changes = True
            result.changed_keys = sorted({*result.changed_keys, TOKEN_KEY})
        return result

    def create_object(self, client: WorkspaceClient, args: GitCredentialModel, spec: Spec):
        body = {**spec, TOKEN_KEY: args.personal_access_token}
        taken_over = False

        def create() -> dict[str, Any]:
            nonlocal taken_over
            try:
                return GitCredentialsApi(client).create(body)
            except AlreadyExists as error:
                found = self._ours(client, spec)
                if found is None:
                    error.message += self._other_one(client, spec)
                    error.args = (str(error),)
                    raise
                taken_over = True
                return found

        made, adopted = create_or_adopt(create, lambda: self._ours(client, spec))
        credential_id = str(made["credential_id"])
        if adopted or taken_over:
            # What an interrupted run made: the declared fields and token, sent again.
            GitCredentialsApi(client).update(credential_id, body)
            made = GitCredentialsApi(client).get(credential_id)
        return credential_id, self._spec_of(made), {DIGEST_KEY: digest(self._token(args))}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = GitCredentialsApi(client).get(id_)
        return self._spec_of(found), {DIGEST_KEY: recorded.get(DIGEST_KEY) or ""}

    def update_object(self, client, id_, recorded, args: GitCredentialModel, spec: Spec):
        token = self._token(args)
        body: dict[str, Any] = dict(spec)
        kept = recorded.get(DIGEST_KEY)
        if not same_value(kept, token):
            body[TOKEN_KEY] = args.personal_access_token
            kept = digest(token)
        GitCredentialsApi(client).update(id_, body)
        found = GitCredentialsApi(client).get(id_)
        return self._spec_of(found), {DIGEST_KEY: kept}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        GitCredentialsApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _token(args: GitCredentialModel) -> bytes:
        return args.personal_access_token.encode("utf-8")

    @staticmethod
    def _spec_of(found: Mapping[str, Any]) -> Spec:
        return {k: found[k] for k in SHOWN if found.get(k) is not None}

    @classmethod
    def _ours(cls, client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The principal's credential for the declared provider where it has the declared
        user name and name (what a create of this resource leaves); None otherwise."""
        for found in GitCredentialsApi(client).list():
            shown = cls._spec_of(found)
            if str(shown.get("git_provider", "")).lower() != spec["git_provider"].lower():
                continue
            if all(shown.get(k) == spec.get(k) for k in ("git_username", "name") if k in spec):
                return dict(found)
        return None

    @classmethod
    def _other_one(cls, client: WorkspaceClient, spec: Spec) -> str:
        provider = spec["git_provider"]
        other: Mapping[str, Any] = next(
            (c for c in GitCredentialsApi(client).list()
             if str(c.get("git_provider", "")).lower() == provider.lower()),
            {},
        )
        return (
            f" (the deploying principal holds credential {other.get('credential_id', '?')} "
            f"for {provider}, user name {other.get('git_username')!r}, and the service allows "
            f"one per provider: import it with that id, or delete it, then deploy again)"
        )


def token_changed(
    olds: Mapping[str, Any], old_inputs: Mapping[str, Any] | None, token: str
) -> bool:
    """Whether the declared token differs from the one last sent: by the recorded digest,
    or where an import recorded none, by the last deployment's (encrypted) input."""
    recorded = olds.get(DIGEST_KEY)
    if recorded:
        return not same_value(recorded, token.encode("utf-8"))
    before = (old_inputs or {}).get(TOKEN_KEY)
    return isinstance(before, str) and before != token


KIND = declare(
    name="GitCredential",
    provider=GitCredentialProvider,
    outputs={DIGEST_KEY: str},
    config_key="gitCredentials",
    identity=("git_provider",),
    doc="docs/git-credential.md",
    summary="the deploying principal's token for one Git provider (a Pulumi secret), "
    "rotated in place",
    import_id="credential id",
    import_id_rule=import_ids.numeric,
    stack_output=("git_credentials", lambda resource: resource.id),
    secrets=(TOKEN_KEY, DIGEST_KEY),
    # The service never answers the token: every credential's item is the user's to finish.
    adoption=Adoption(
        secret_value=(TOKEN_KEY, "the Git provider's personal access token the credential "
                      "holds: the import takes the declared one as held"),
    ),
    inventory=lambda client: (
        # Named by its identity, the provider: one credential per provider and principal.
        (str(c["credential_id"]), str(c.get("git_provider") or ""))
        for c in GitCredentialsApi(client).list()
    ),
    drill=appended_to("git_username", "-updated"),
)
