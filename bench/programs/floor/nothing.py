"""The floor's provider, in a module of its own: dill pickles it by reference, as it does
the workspace providers, so the floor pays no by-value pickling of its code per resource.
The program and the provider host (started in this directory) both import it from here."""

from pulumi.dynamic import CreateResult, ResourceProvider


class NothingProvider(ResourceProvider):
    def create(self, props):
        return CreateResult(f"floor-{props['index']}", {})
