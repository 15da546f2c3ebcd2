"""A diff that stays precise while some inputs are unknown (during preview).

`WorkspaceProvider.diff` compares raw inputs with the recorded spec as soon as any input is
unknown, so a known input written another way than its normal form (an id as a number, a
catalog name in capitals, a reordered list) shows as a change, and on a replace key as a
replacement. Here the known inputs are normalised as usual, with the recorded value
standing in for each unknown top-level input, which is then reported as changed.

Meant to move into `WorkspaceProvider.diff`; until then kinds call it from their `diff`.
"""

from __future__ import annotations

from typing import Any

import pydantic
from pulumi.dynamic import DiffResult

from providers.lifecycle import WorkspaceProvider, contains_unknown, user_inputs


def diff_with_unknowns(
    provider: WorkspaceProvider, olds: dict[str, Any], news: dict[str, Any]
) -> DiffResult | None:
    """The diff when some inputs are unknown; None when none are, or when the known ones
    cannot be normalised (the base diff then decides)."""
    inputs = user_inputs(news)
    unknown = {k for k, v in inputs.items() if contains_unknown(v)}
    if not unknown:
        return None
    recorded = provider._recorded_spec(olds)
    stand_ins = {k: recorded[k] for k in unknown if k in recorded}
    known = {k: v for k, v in inputs.items() if k not in unknown}
    try:
        desired = provider.spec(provider.args_model.model_validate({**known, **stand_ins}))
    except pydantic.ValidationError:
        return None
    changed = sorted(
        unknown | {k for k in set(desired) | set(recorded) if desired.get(k) != recorded.get(k)}
    )
    replaces = [k for k in changed if k in provider.replace_keys]
    return DiffResult(
        changes=bool(changed),
        replaces=replaces,
        delete_before_replace=bool(replaces) and provider.must_delete_first(changed),
    )
