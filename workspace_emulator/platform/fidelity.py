"""How faithfully the platform serves an operation: the levels, and one entry's shape.

Each area lists its operations' entries (`Area.support`); platform/support.py gathers them.

Levels:
- stateful: validated as the service validates (refusals in its status and body), and the
  change is stored: every later read, through any version or wire form, shows it.
- validated: checked and answered in the service's shape, nothing stored or changed
  (fixed answers, e.g. the permission levels a job offers).
- simulated: the service's effect is played out, not performed: no cluster computes, no
  run executes; states move over the transition time (or the manual clock) and outcomes
  follow documented triggers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["stateful", "validated", "simulated"]
LEVELS: tuple[Level, ...] = ("stateful", "validated", "simulated")


@dataclass(frozen=True)
class Fidelity:
    level: Level
    note: str


def stateful(note: str) -> Fidelity:
    return Fidelity("stateful", note)


def validated(note: str) -> Fidelity:
    return Fidelity("validated", note)


def simulated(note: str) -> Fidelity:
    return Fidelity("simulated", note)
