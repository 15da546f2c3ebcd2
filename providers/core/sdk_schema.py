"""Pydantic models derived from the dataclasses of the service's official SDK.

The SDK (`databricks.sdk.service.jobs`, `databricks.sdk.service.compute`, ...) carries the
service's request shapes as dataclasses, generated from the service's API specification. This
module turns such a dataclass, and every dataclass it nests, into pydantic v2 models, field for
field, from the SDK's own type hints (`typing.get_type_hints`), so no field of the service is
typed twice:

- every model forbids fields it does not know, so a typo is an error at its path;
- a field the SDK types `Optional[...]` defaults to None; the others are required;
- an SDK `Enum` is accepted as its string value (matched without regard to case and kept in the
  SDK's spelling); a wrong value is an error that lists the allowed ones;
- lists and dicts are derived element by element; `int`, `float`, `str` and `bool` are as the
  hints say, in pydantic's lax mode (Pulumi hands numbers over as floats: 3600.0 is an int).

Our own rules attach per SDK class name (`ClassRules`): a field's type replaced (say, a string
with a validator), a field made required, or checks on the whole object, without retyping the
class. A set of rules and the models derived under it form one `SdkModels`; each model is derived
once per set and cached.

How the schema stays current: the models follow the SDK version the project pins
(`databricks-sdk` in pyproject.toml). Nothing here names a field of the service, so a field the
service adds arrives by bumping that pin; a rule that names a field the new SDK no longer has
fails at import, so a rename cannot go unnoticed.
"""

from __future__ import annotations

import dataclasses
import enum
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import (
    Annotated,
    Any,
    ForwardRef,
    Literal,
    Optional,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import BaseModel, BeforeValidator, ConfigDict, create_model, model_validator

_CONFIG = ConfigDict(extra="forbid", protected_namespaces=())
_SCALARS = (str, int, float, bool)


@dataclasses.dataclass(frozen=True, eq=False)
class ClassRules:
    """Our own rules for the model of one SDK class.

    `fields`: a field's type instead of the SDK's (it stays optional if the SDK's is, e.g.
    `Annotated[str, AfterValidator(check)]`); `required`: fields required although the SDK makes
    them optional; `validators`: checks of the whole object, each called with the validated model
    and raising ValueError (the error's path is the object's).
    """

    fields: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    required: Collection[str] = ()
    validators: tuple[Callable[[Any], None], ...] = ()


_NO_RULES = ClassRules()


class SdkModels:
    """The models of SDK dataclasses under one set of rules (keyed by SDK class name)."""

    def __init__(self, rules: Mapping[str, ClassRules] | None = None) -> None:
        self._rules = dict(rules or {})
        self._models: dict[type, type[BaseModel]] = {}
        self._enums: dict[type, Any] = {}
        self._building: set[type] = set()
        self._namespace: dict[str, type[BaseModel]] = {}

    def model_of(self, sdk_class: type) -> type[BaseModel]:
        """The model of `sdk_class` (a dataclass of the SDK), derived on first use."""
        model = self._models.get(sdk_class)
        return model if model is not None else self._derive(sdk_class)

    def _derive(self, sdk_class: type) -> type[BaseModel]:
        if not (isinstance(sdk_class, type) and dataclasses.is_dataclass(sdk_class)):
            raise TypeError(f"{sdk_class!r} is not an SDK dataclass")
        rules = self._rules.get(sdk_class.__name__, _NO_RULES)
        fields = dataclasses.fields(sdk_class)
        unknown = (set(rules.fields) | set(rules.required)) - {f.name for f in fields}
        if unknown:
            raise ValueError(
                f"rules for {sdk_class.__name__} name fields the SDK does not have: "
                f"{sorted(unknown)}"
            )
        self._building.add(sdk_class)
        try:
            hints = get_type_hints(sdk_class)
            definitions: dict[str, Any] = {}
            for field in fields:
                value_type = rules.fields.get(field.name)
                if value_type is None:
                    value_type = self._annotation(_without_none(hints[field.name]))
                optional = field.name not in rules.required and (
                    field.default is not dataclasses.MISSING
                    or field.default_factory is not dataclasses.MISSING
                )
                definitions[field.name] = (
                    (Optional[value_type], None) if optional else (value_type, ...)  # noqa: UP045
                )
            with warnings.catch_warnings():
                # A field named like a deprecated BaseModel method (dbt's `schema`) is a field
                # all the same: instances read it from their own values.
                warnings.filterwarnings("ignore", "Field name .* shadows an attribute")
                model = create_model(
                    sdk_class.__name__,
                    __config__=_CONFIG,
                    __doc__=sdk_class.__doc__,
                    __module__=__name__,
                    __validators__=_validators(rules.validators),
                    **definitions,
                )
        finally:
            self._building.discard(sdk_class)
        self._models[sdk_class] = model
        self._namespace[_reference(sdk_class)] = model
        if not self._building:
            # The outermost derivation is done: resolve the references of recursive classes
            # (a for-each task holds a task).
            for pending in self._models.values():
                if not pending.__pydantic_complete__:
                    pending.model_rebuild(_types_namespace=self._namespace)
        return model

    def _annotation(self, hint: Any) -> Any:
        origin = get_origin(hint)
        if hint in _SCALARS or hint is Any:
            return hint
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return self._enum(hint)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            if hint in self._building:
                return ForwardRef(_reference(hint))
            return self.model_of(hint)
        if origin is list:
            return list[self._annotation(get_args(hint)[0])]  # type: ignore[misc]
        if origin is dict:
            key, value = get_args(hint)
            return dict[self._annotation(key), self._annotation(value)]  # type: ignore[misc]
        if origin is Union:
            members = [a for a in get_args(hint) if a is not type(None)]
            derived = tuple(self._annotation(a) for a in members)
            result = derived[0] if len(derived) == 1 else Union[derived]  # noqa: UP007
            return Optional[result] if len(members) < len(get_args(hint)) else result  # noqa: UP045
        raise TypeError(f"no model for the SDK type hint {hint!r}")

    def _enum(self, enum_class: type[enum.Enum]) -> Any:
        annotation = self._enums.get(enum_class)
        if annotation is None:
            values = tuple(str(member.value) for member in enum_class)
            annotation = Annotated[
                Literal[values],
                BeforeValidator(_canonical_spelling(enum_class, values)),
            ]
            self._enums[enum_class] = annotation
        return annotation


def _canonical_spelling(enum_class: type[enum.Enum], values: tuple[str, ...]) -> Callable:
    known = frozenset(values)
    by_lower = {value.lower(): value for value in values}
    if len(by_lower) != len(values):  # two values differ only by case: match exactly
        by_lower = {}

    def canonical(value: Any) -> Any:
        if isinstance(value, enum_class):
            return value.value
        if isinstance(value, str) and value not in known:
            return by_lower.get(value.lower(), value)
        return value

    return canonical


def _validators(checks: tuple[Callable[[Any], None], ...]) -> dict[str, Any]:
    def as_validator(check: Callable[[Any], None]) -> Any:
        def validate(model: Any) -> Any:
            check(model)
            return model

        return model_validator(mode="after")(validate)

    return {f"_rule_{index}": as_validator(check) for index, check in enumerate(checks)}


def _without_none(hint: Any) -> Any:
    if get_origin(hint) is Union:
        members = [a for a in get_args(hint) if a is not type(None)]
        if len(members) == 1:
            return members[0]
    return hint


def _reference(sdk_class: type) -> str:
    """A name for `sdk_class` unique across the SDK's modules (jobs and compute may share one)."""
    return f"{sdk_class.__module__.replace('.', '_')}__{sdk_class.__qualname__}"


_plain = SdkModels()
_by_rules: dict[int, tuple[Mapping[str, ClassRules], SdkModels]] = {}


def model_of(
    sdk_class: type, *, overrides: Mapping[str, ClassRules] | None = None
) -> type[BaseModel]:
    """The pydantic model of an SDK dataclass, with `overrides` (our rules, keyed by SDK class
    name) attached. Models are cached per class and per overrides mapping: pass one mapping
    object (a module constant) to share them."""
    if overrides is None:
        return _plain.model_of(sdk_class)
    entry = _by_rules.get(id(overrides))
    if entry is None:
        # The mapping is kept alive alongside, so its id cannot be reused by another one.
        entry = _by_rules[id(overrides)] = (overrides, SdkModels(overrides))
    return entry[1].model_of(sdk_class)


def model_at(model: type[BaseModel], loc: Iterable[int | str]) -> type[BaseModel] | None:
    """The model of the object at `loc` (a pydantic error location) inside `model`, or None when
    `loc` leads to no object. Used to name the fields allowed where an unknown one was given."""
    annotation: Any = model
    for part in loc:
        annotation = _step(annotation, part)
        if annotation is None:
            return None
    return _as_model(annotation)


def _step(annotation: Any, part: int | str) -> Any:
    model = _as_model(annotation)
    if model is not None:
        field = model.model_fields.get(str(part))
        return field.annotation if field is not None else None
    origin = get_origin(annotation)
    if origin is list:
        return get_args(annotation)[0]
    if origin is dict:
        return get_args(annotation)[1]
    for member in get_args(annotation) if origin in (Union, Annotated) else ():
        found = _step(member, part)
        if found is not None:
            return found
    return None


def _as_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (Union, Annotated):
        for member in get_args(annotation):
            model = _as_model(member)
            if model is not None:
                return model
    return None
