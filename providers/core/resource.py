"""The program-side base of every workspace resource kind."""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import Resource, ResourceProvider

from providers.auth.component import provider_for
from providers.core.lifecycle import CONNECTION_KEY, PROVIDER_KEY


class WorkspaceResource(Resource):
    """A dynamic resource served by a `WorkspaceProvider`.

    `connection` is the `connection` output of a `WorkspaceAuth` component. It is never
    compared, so rotated credentials or tokens cause no change. It binds the resource to
    that component's provider (unless `opts.provider` names another), which
    `ResourceOptions(import_=id)` needs and whose configuration supplies the connection and
    the provider code (providers/core/host.py): such a resource sends neither, and its state
    keeps none. Without a WorkspaceAuth (or with an explicit `opts.provider`) both are sent
    and stored with the resource, as secrets.
    `outputs` names the computed outputs, registered so they appear as attributes.
    """

    def __init__(
        self,
        provider: ResourceProvider,
        name: str,
        connection: pulumi.Input[dict],
        inputs: dict[str, Any],
        outputs: tuple[str, ...] = (),
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props: dict[str, Any] = {key: None for key in outputs}
        props.update({k: v for k, v in inputs.items() if v is not None})
        explicit = opts is not None and opts.provider is not None
        bound = None if explicit else provider_for(connection)
        # Bound, a resource holds neither the connection nor the provider code, so naming
        # them secret outputs would only record the names in every resource's state.
        own = pulumi.ResourceOptions(
            provider=bound,
            additional_secret_outputs=None if bound else [CONNECTION_KEY, PROVIDER_KEY],
        )
        merged = pulumi.ResourceOptions.merge(own, opts)
        if bound is not None:
            # Its WorkspaceAuth's provider host puts the connection and the provider code back
            # into every request (providers/core/host.py), so neither is sent: each would cost
            # every resource a secret value to resolve, serialise and encrypt.
            pulumi.CustomResource.__init__(
                self, f"pulumi-python:{self._resource_type_name}", name, props, merged
            )
            return
        props[CONNECTION_KEY] = pulumi.Output.secret(connection)
        super().__init__(provider, name, props, merged)


def deployment_tag(resource_name: str) -> str:
    """Names this resource of this stack, so a retried create can find what it made."""
    return f"{pulumi.get_project()}/{pulumi.get_stack()}/{resource_name}"
