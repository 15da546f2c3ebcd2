"""floor_same's providers, in a module of their own: dill pickles them by reference, as it
does the floor's (bench/programs/floor/nothing.py), so no resource pays for pickling their
code by value. The program and the provider host (started in this directory) both import
them as `echo`, as the floor's `nothing`: the reference every resource records in its
`__provider`, in inputs and outputs, stays as short as the floor's.

A create makes nothing and calls nobody: it returns the inputs as outputs, plus stand-ins of
the same shape and size for what the service computes and ours records for that kind, so a
resource's state is about ours'. `DECLARED_PROVIDERS` (the `floor_declared` variant) return
only the stand-ins and what a delete needs: a state that holds the declaration once, the
least any provider of this mix records.
"""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

from pulumi.dynamic import CreateResult, ResourceProvider

from bench.programs.mix import JOB, JOB_PERMISSIONS, SECRET_SCOPE, SERVICE_PRINCIPAL

# The type token's module: `pulumi-python:dynamic/floor_same:<kind>`, as ours' are
# `pulumi-python:dynamic/workspace:<kind>`.
MODULE = "floor_same"
# Stand-ins of a workspace's address and of the principal the jobs are created as.
WORKSPACE_URL = "http://127.0.0.1:10000"
CREATOR = "00000000-0000-4000-8000-000000000000"
# Ids of the service's lengths (a job's 13 digits, a principal's 16), unique per host.
_job_ids = itertools.count(1_000_000_000_001)
_principal_ids = itertools.count(4_000_000_000_000_001)


class Echo(ResourceProvider):
    """The inputs as outputs, plus `computed(props)`, under the id `identify(props)`."""

    # The outputs a create adds to the inputs (the program registers them, as ours does).
    computed_keys: ClassVar[tuple[str, ...]] = ()
    # Whether the outputs repeat the inputs, as ours' do (and every provider's that records
    # what it found); otherwise they hold only the computed outputs and `kept_keys`.
    repeats_inputs: ClassVar[bool] = True
    # The inputs a delete needs beside the id: what outputs that repeat nothing still keep.
    kept_keys: ClassVar[tuple[str, ...]] = ()

    def create(self, props: Any) -> CreateResult:
        resource_id, computed = self.identify(props)
        kept = props if self.repeats_inputs else {k: props[k] for k in self.kept_keys}
        return CreateResult(resource_id, {**kept, **computed})

    def identify(self, props: Any) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError


class JobEcho(Echo):
    computed_keys = ("job_id", "url", "creator_user_name")

    def identify(self, props: Any) -> tuple[str, dict[str, Any]]:
        job_id = next(_job_ids)
        url = f"{WORKSPACE_URL}/#job/{job_id}"
        return str(job_id), {"job_id": job_id, "url": url, "creator_user_name": CREATOR}


class JobPermissionsEcho(Echo):
    kept_keys = ("job_id",)

    def identify(self, props: Any) -> tuple[str, dict[str, Any]]:
        # Numbers cross the engine as doubles: the id is the job's, as ours records it.
        return str(int(props["job_id"])), {}


class SecretScopeEcho(Echo):
    computed_keys = ("backend_type",)

    def identify(self, props: Any) -> tuple[str, dict[str, Any]]:
        return props["name"], {"backend_type": "DATABRICKS"}


class ServicePrincipalEcho(Echo):
    # Ours outputs the application id always (declared, or assigned by the service).
    computed_keys = ("active", "application_id")
    kept_keys = ("application_id",)

    def identify(self, props: Any) -> tuple[str, dict[str, Any]]:
        computed = {"active": True, "application_id": props["application_id"]}
        return str(next(_principal_ids)), computed


PROVIDERS: dict[str, type[Echo]] = {
    JOB: JobEcho,
    JOB_PERMISSIONS: JobPermissionsEcho,
    SECRET_SCOPE: SecretScopeEcho,
    SERVICE_PRINCIPAL: ServicePrincipalEcho,
}


# `floor_declared`'s: the same, but outputs that repeat no input (classes of their own, at
# module level, so dill pickles them by reference too).
class JobDeclared(JobEcho):
    repeats_inputs = False


class JobPermissionsDeclared(JobPermissionsEcho):
    repeats_inputs = False


class SecretScopeDeclared(SecretScopeEcho):
    repeats_inputs = False


class ServicePrincipalDeclared(ServicePrincipalEcho):
    repeats_inputs = False


DECLARED_PROVIDERS: dict[str, type[Echo]] = {
    JOB: JobDeclared,
    JOB_PERMISSIONS: JobPermissionsDeclared,
    SECRET_SCOPE: SecretScopeDeclared,
    SERVICE_PRINCIPAL: ServicePrincipalDeclared,
}
