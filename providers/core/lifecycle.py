"""The lifecycle every workspace resource kind shares, as a Pulumi dynamic provider.

A kind subclasses `WorkspaceProvider` and supplies:

- `args_model`: the pydantic model of its inputs. `check` validates against it without a
  network call and reports one failure per bad field, named by its dotted path. A model
  costly to build may be named instead (`ModelAt`): it is imported where first used, so
  requests that judge no inputs (read, delete) never build it.
- `spec(args)`: the normalised desired state, a JSON-like dict in one canonical form
  (lists that are sets sorted, server defaults left out). `diff` compares this with the
  state recorded at the last create/update/read, so nesting variants, reordered lists and
  server-filled defaults never show as changes.
- `create_object`, `read_object`, `update_object`, `delete_object`: the service calls (an
  object the service says is gone reads as gone and is deleted already: handled here). They
  return the *observed* state in spec form; the base class keeps only the keys the user
  declared (`project_onto`) and records that, so a refresh shows out-of-band changes of
  declared fields and nothing else.

What a kind returns as outputs is the projected spec plus the kind's computed outputs plus
the connection. The provider host (providers/core/host.py) leaves the connection out of the
state of a resource bound to a configured provider; elsewhere it is recorded as a secret.
The connection never takes part in `diff`: rotating credentials or tokens is never a change
of a resource.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pydantic
from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)
from pulumi.output import Unknown

from providers.client import Connection, WorkspaceError, is_gone

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

CONNECTION_KEY = "connection"
PROVIDER_KEY = "__provider"
# The placeholder Pulumi's Python SDK sends for a value not known yet (during preview).
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

Spec = dict[str, Any]


def contains_unknown(value: Any) -> bool:
    # Through the engine an unknown arrives as an `Unknown` instance (the dynamic host
    # deserialises with keep_unknowns); the string form is what direct callers pass.
    if isinstance(value, Unknown) or value == UNKNOWN:
        return True
    if isinstance(value, Mapping):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(contains_unknown(v) for v in value)
    return False


def user_inputs(props: Mapping[str, Any]) -> dict[str, Any]:
    """The declared inputs: everything but the connection and Pulumi's own keys."""
    return {k: v for k, v in props.items() if k not in (CONNECTION_KEY, PROVIDER_KEY)}


def project_onto(observed: Any, like: Any) -> Any:
    """`observed` restricted to the shape of `like`: keys the user did not declare are
    server-filled and dropped; lists are kept whole (their normal form is the kind's job)."""
    if isinstance(like, Mapping) and isinstance(observed, Mapping):
        return {k: project_onto(observed[k], like[k]) for k in like if k in observed}
    return observed


def check_failures(
    model: type[pydantic.BaseModel], inputs: Mapping[str, Any]
) -> list[CheckFailure]:
    """One failure per bad field. Fields whose value is still unknown are not judged."""
    try:
        model.model_validate(inputs)
    except pydantic.ValidationError as error:
        failures = []
        for issue in error.errors(include_url=False):
            if contains_unknown(issue.get("input")):
                continue
            path = ".".join(str(part) for part in issue["loc"]) or "(inputs)"
            reason = issue["msg"].removeprefix("Value error, ")
            failures.append(CheckFailure(path, reason))
        return failures
    return []


@contextlib.contextmanager
def undone_on_failure(undo: Callable[[], None]) -> Iterator[None]:
    """Runs `undo` when the block fails. A create that changes an object it did not make
    (a repo's branch, a catalog's isolation) undoes a partial change before failing: Pulumi
    records nothing of a failed create, and the next create must find what was there
    before, not the half-made change, to record it as the state to restore on delete."""
    try:
        yield
    except Exception as error:
        try:
            undo()
        except Exception as undo_error:  # the original error is the one to report
            error.add_note(f"Undoing the partial change failed too: {undo_error}")
        raise


def spec_changes(
    provider: WorkspaceProvider, recorded: Mapping[str, Any], new_inputs: Mapping[str, Any]
) -> list[tuple[str, Any, Any]] | None:
    """(key, before, after) per top-level key whose normal form (`spec`) differs between the
    recorded state and the new inputs: a `field_changes` for kinds whose normal form is
    their spec. None where the new inputs do not validate."""
    try:
        desired = provider.spec(provider.args_model.model_validate(user_inputs(new_inputs)))
    except pydantic.ValidationError:
        return None
    old = provider._recorded_spec(recorded)
    keys = sorted(k for k in set(desired) | set(old) if desired.get(k) != old.get(k))
    return [(key, old.get(key), desired.get(key)) for key in keys]


class KeyedDiffResult(DiffResult):
    """A DiffResult that also names the top-level keys that change, and where a kind can
    tell, each change at field level (`tasks[ingest].max_retries: 2 → 5`)."""

    def __init__(self, changed_keys: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.changed_keys = changed_keys
        self.field_changes: list[str] = []
        # Engine property paths (into the inputs) of the changed fields -> add/update/delete.
        self.detailed_paths: dict[str, str] = {}


class ModelAt:
    """A provider's `args_model` named by module and class, imported on first use."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> type[pydantic.BaseModel]:
        model: type[pydantic.BaseModel] = getattr(importlib.import_module(self.module), self.name)
        return model


class WorkspaceProvider(ResourceProvider):
    """Base of every workspace kind's dynamic provider. Holds no state: Pulumi pickles it."""

    args_model: ClassVar[type[pydantic.BaseModel]]
    # Top-level spec keys whose change can only be applied by replacing the object.
    replace_keys: ClassVar[frozenset[str]] = frozenset()
    # Outputs the kind computes (ids, URLs, what it replaced); recorded, never diffed.
    computed_keys: ClassVar[frozenset[str]] = frozenset()
    # Settings that, once declared and then left out of the config, stay as the service has
    # them (an owner, an isolation mode): no update could give them back a value of their
    # own, so leaving one out is no change. Every other setting left out is a change, which
    # the kind's update clears.
    kept_when_left_out: ClassVar[frozenset[str]] = frozenset()
    # Names the service matches without regard to case (a storage credential's, a grant's
    # securable): one spelled in another case names the same object, so it is no change.
    # Were it a change of a replace key, the replacement would adopt the object by its name
    # and then delete it as the old one.
    matched_without_case: ClassVar[frozenset[str]] = frozenset()
    # Whether the diff asks the service (a token's remaining lifetime, judged against the
    # service's clock): the provider host then never answers a Diff from the requests alone.
    diff_reads_the_service: ClassVar[bool] = False

    # --- what a kind implements -------------------------------------------------------
    def spec(self, args: Any) -> Spec:
        return args.model_dump(mode="json", exclude_none=True)

    def create_object(
        self, client: WorkspaceClient, args: Any, spec: Spec
    ) -> tuple[str, Spec, dict]:
        """Creates (or adopts) the object; returns its id, observed spec, computed outputs."""
        raise NotImplementedError

    def read_object(
        self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]
    ) -> tuple[Spec, dict] | None:
        """The observed spec and computed outputs, or None when the object is gone."""
        raise NotImplementedError

    def update_object(
        self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any], args: Any, spec: Spec
    ) -> tuple[Spec, dict]:
        raise NotImplementedError

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        raise NotImplementedError

    @classmethod
    def input_failures(cls, inputs: Mapping[str, Any]) -> list[CheckFailure]:
        """Every problem of the declared inputs, named by path, without a network call: the
        model's, and then the kind's rules across fields (`rules`). The stack's config
        checker asks this too."""
        failures = check_failures(cls.args_model, inputs)
        if failures or contains_unknown(dict(inputs)):
            return failures
        return [CheckFailure(path, reason) for path, reason in cls.rules(inputs)]

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(path, reason) per broken rule across fields, for inputs the model accepted."""
        return []

    @classmethod
    def field_changes(
        cls, recorded: Mapping[str, Any], new_inputs: Mapping[str, Any]
    ) -> list[tuple[str, Any, Any]] | None:
        """(path, before, after) per changed field between the recorded state (outputs) and
        the new inputs, where the kind has a better view than a comparison of the raw inputs
        (keyed lists, normal forms, drift read by a refresh); None: compare the inputs. The
        pull-request summary (stacks/preview_summary.py) asks this. An added field has
        before None, a removed one after None."""
        return None

    # --- the dynamic-provider protocol ---------------------------------------------
    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        failures = self.input_failures(user_inputs(news))
        if news.get(CONNECTION_KEY) in (None, {}):
            failures.append(
                CheckFailure(
                    CONNECTION_KEY,
                    "required: pass the `connection` output of a WorkspaceAuth component",
                )
            )
        return CheckResult(news, failures)

    def diff(
        self,
        _id: str,
        olds: dict[str, Any],
        news: dict[str, Any],
        old_inputs: Mapping[str, Any] | None = None,
    ) -> KeyedDiffResult:
        """`old_inputs`: the inputs of the last deployment, when known (the provider host
        passes them). A recorded setting they did not declare is the service's own, as an
        imported resource records everything the service showed; it is not a change.
        Without them, every recorded setting counts."""
        recorded = self._recorded_spec(olds)
        owned = self._declared_keys(old_inputs)
        changed_keys, desired = self._changed_keys(recorded, user_inputs(news), owned)
        changed = sorted(changed_keys)
        replaces = [k for k in changed if k in self.replace_keys]
        result = KeyedDiffResult(
            changed,
            changes=bool(changed),
            replaces=replaces,
            delete_before_replace=bool(replaces) and self.must_delete_first(changed),
        )
        if changed and desired is not None:
            self.describe_changes(result, recorded, desired, news, olds)
        return result

    def describe_changes(
        self,
        result: KeyedDiffResult,
        recorded: Spec,
        desired: Spec,
        news: Mapping[str, Any],
        olds: Mapping[str, Any],
    ) -> None:
        """Where a kind can name its changes field by field, it fills `result.field_changes`
        and `result.detailed_paths` here (from the normal forms the diff compared)."""

    def _declared_keys(self, old_inputs: Mapping[str, Any] | None) -> set[str] | None:
        """The spec keys the old inputs declared; None where that cannot be told."""
        if old_inputs is None:
            return None
        inputs = user_inputs(old_inputs)
        if not inputs:
            return set()  # an import: the program has declared nothing yet
        try:
            return set(self.spec(self.args_model.model_validate(inputs)))
        except pydantic.ValidationError:
            return None

    def _changed_keys(
        self, recorded: Spec, inputs: dict[str, Any], owned: set[str] | None = None
    ) -> tuple[set[str], Spec | None]:
        """Top-level spec keys whose desired value differs from the recorded one, and the
        desired spec (None while an input is unknown). Of the recorded keys the desired state
        lacks, only the `owned` ones (default: all) count.

        A top-level input still unknown (during preview) counts as changed; the known
        inputs are normalised as usual, the recorded value standing in for each unknown one,
        so an id written as a number or a reordered list is no change in preview either.
        """
        owned = set(recorded) if owned is None else owned & set(recorded)
        owned -= self.kept_when_left_out
        unknown = {k for k, v in inputs.items() if contains_unknown(v)}
        stand_ins = {k: recorded[k] for k in unknown if k in recorded}
        try:
            model = self.args_model.model_validate({**inputs, **stand_ins})
        except pydantic.ValidationError:
            if not unknown:
                raise
            # An unknown nested deeper than the top level, or no recorded stand-in: the
            # raw comparison is the best the preview can do.
            changed = {k for k in set(inputs) | owned if inputs.get(k) != recorded.get(k)}
            return unknown | changed, None
        desired = self.spec(model)
        changed = {k for k in set(desired) | owned if self._differs(k, desired, recorded)}
        return unknown | changed, None if unknown else desired

    def _differs(self, key: str, desired: Spec, recorded: Spec) -> bool:
        wanted, held = desired.get(key), recorded.get(key)
        if key in self.matched_without_case and isinstance(wanted, str) \
                and isinstance(held, str):
            return wanted.casefold() != held.casefold()
        return wanted != held

    def must_delete_first(self, changed: list[str]) -> bool:
        """Whether a replacement must delete the old object before creating the new one:
        true where the natural key (a scope name, an application id) would collide."""
        return False

    def create(self, props: dict[str, Any]) -> CreateResult:
        args = self.args_model.model_validate(user_inputs(props))
        spec = self.spec(args)
        id_, observed, computed = self.create_object(self._client(props), args, spec)
        return CreateResult(id_, self._outputs(props, spec, observed, computed))

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        recorded = self._recorded_spec(props)
        try:
            found = self.read_object(self._client(props), id_, props)
        except WorkspaceError as error:
            if not is_gone(error):
                raise
            found = None
        if found is None:
            return ReadResult(None, {})
        observed, computed = found
        like = self._recorded_shape(recorded, observed)
        return ReadResult(id_, self._outputs(props, like, observed, computed))

    def _recorded_shape(self, recorded: Spec, observed: Spec) -> Spec:
        """What a read records of the observed state: the keys recorded before (the declared
        ones), or everything where nothing was (an import)."""
        return recorded or observed

    def update(
        self,
        id_: str,
        olds: dict[str, Any],
        news: dict[str, Any],
        old_inputs: Mapping[str, Any] | None = None,
    ) -> UpdateResult:
        """`old_inputs`: the last deployment's inputs, where the provider host passes them."""
        args = self.args_model.model_validate(user_inputs(news))
        spec = self.spec(args)
        observed, computed = self.update_object(self._client(news), id_, olds, args, spec)
        return UpdateResult(self._outputs(news, spec, observed, computed))

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        try:
            self.delete_object(self._client(props), id_, props)
        except WorkspaceError as error:
            if not is_gone(error):  # already gone: deleted
                raise

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _client(props: Mapping[str, Any]) -> WorkspaceClient:
        # Loaded at the first call: the service areas (the SDK's service modules) are most
        # of the client's import time, which a host answering only configuration never needs.
        from providers.client import client_for

        return client_for(Connection.from_props(props[CONNECTION_KEY]))

    def _recorded_spec(self, outputs: Mapping[str, Any]) -> Spec:
        return {k: v for k, v in user_inputs(outputs).items() if k not in self.computed_keys}

    def _outputs(
        self, props: Mapping[str, Any], like: Spec, observed: Spec, computed: dict
    ) -> dict:
        return {
            **project_onto(observed, like),
            **computed,
            CONNECTION_KEY: props[CONNECTION_KEY],
        }
