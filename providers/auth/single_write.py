"""The program's side of the single-write mode (docs/state.md, "Single-write mode").

With `PULUMI_SKIP_CHECKPOINTS` the engine writes the state once, at the end of a deployment,
instead of after every step. A run killed in the middle then leaves the state as it was
before the run: whatever it made is recorded nowhere. That is safe for the workspace kinds
only, since each create adopts what an interrupted run made, each delete of a missing object
succeeds and each update is idempotent. A resource of another provider makes no such
promise, so under the mode the program refuses to declare one, before anything is deployed.
"""

from __future__ import annotations

import os

import pulumi

SKIP_CHECKPOINTS = "PULUMI_SKIP_CHECKPOINTS"
# providers.core.kind.TYPE_PREFIX (WorkspaceAuth imports nothing of providers.core).
WORKSPACE_TYPE_PREFIX = "pulumi-python:dynamic/workspace:"
# What the engine itself keeps of a stack besides its resources: the stack, the providers.
ENGINE_TYPES = ("pulumi:pulumi:Stack",)
PROVIDER_TYPE_PREFIX = "pulumi:providers:"



class SingleWriteRefused(pulumi.RunError):
    """A resource the single-write mode cannot keep safe; Pulumi prints it without a trace."""


def skipping_checkpoints() -> bool:
    return os.environ.get(SKIP_CHECKPOINTS, "").strip().lower() in ("1", "true", "yes")


def is_safe_custom_type(type_: str) -> bool:
    """Whether a custom resource of this type may live in a stack of the single-write mode:
    a workspace kind, or a provider."""
    return type_.startswith((WORKSPACE_TYPE_PREFIX, PROVIDER_TYPE_PREFIX)) or type_ in ENGINE_TYPES


def refusal(type_: str, name: str) -> str:
    return (
        f"resource '{name}' ({type_}): the single-write mode (PULUMI_SKIP_CHECKPOINTS) is "
        "only safe for workspace kinds, whose creates adopt what an interrupted run made; "
        "a resource of another provider could be made twice or lost. Deploy this program "
        "without the mode (unset WORKSPACE_IAC_SINGLE_WRITE and PULUMI_SKIP_CHECKPOINTS, "
        "set workspace:singleWrite false)"
    )


def _refuse_other_providers(
    args: pulumi.ResourceTransformationArgs,
) -> pulumi.ResourceTransformationResult | None:
    if isinstance(args.resource, pulumi.CustomResource) and not is_safe_custom_type(args.type_):
        raise SingleWriteRefused(refusal(args.type_, args.name))
    return None


def guard_declarations() -> None:
    """Under the single-write mode, refuses every resource of another provider declared
    from here on (without the mode, nothing). Registered by each WorkspaceAuth of each run:
    programs run inline in one process (the Automation API) each need their own, and a
    second one in a run only checks again."""
    if not skipping_checkpoints():
        return
    pulumi.runtime.register_stack_transformation(_refuse_other_providers)
