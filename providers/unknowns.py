"""A diff that stays precise while some inputs are unknown (values not known yet, in preview).

As soon as any input is unknown, `WorkspaceProvider.diff` (providers/lifecycle.py) compares
the raw inputs with the recorded spec, so a known input written another way than its
normal form (an id as a number, a catalog name in capitals, a reordered list) shows as a
change, and on a replace key as a replacement. Here the known inputs are normalised as
usual, with the recorded value standing in for each unknown top-level input, which is
then reported as changed. Meant to move into the base class.
"""

from __future__ import annotations

from typing import Any

import pydantic
from pulumi.dynamic import DiffResult

from providers.lifecycle import WorkspaceProvider, contains_unknown, user_inputs


class UnknownTolerantProvider(WorkspaceProvider):
    """A `WorkspaceProvider` whose diff stays precise while some inputs are unknown."""

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        return self._diff_with_unknowns(olds, news) or super().diff(id_, olds, news)

    def _diff_with_unknowns(self, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult | None:
        """None when no input is unknown, or when the known ones cannot be normalised (the
        base diff then decides)."""
        inputs = user_inputs(news)
        unknown = {k for k, v in inputs.items() if contains_unknown(v)}
        if not unknown:
            return None
        recorded = self._recorded_spec(olds)
        stand_ins = {k: recorded[k] for k in unknown if k in recorded}
        known = {k: v for k, v in inputs.items() if k not in unknown}
        try:
            desired = self.spec(self.args_model.model_validate({**known, **stand_ins}))
        except pydantic.ValidationError:
            return None
        changed = sorted(
            unknown | {k for k in set(desired) | set(recorded) if desired.get(k) != recorded.get(k)}
        )
        replaces = [k for k in changed if k in self.replace_keys]
        return DiffResult(
            changes=bool(changed),
            replaces=replaces,
            delete_before_replace=bool(replaces) and self.must_delete_first(changed),
        )
