"""State and rules of the workspace, with no knowledge of HTTP."""

from __future__ import annotations

from dataclasses import dataclass

from workspace_emulator.identity import IdentityProvider
from workspace_emulator.platform.models.catalogs import Catalogs
from workspace_emulator.platform.models.cluster_policies import ClusterPolicies
from workspace_emulator.platform.models.clusters import Clusters
from workspace_emulator.platform.models.directory import Caller, Directory
from workspace_emulator.platform.models.ip_access_lists import IpAccessLists
from workspace_emulator.platform.models.jobs import Jobs
from workspace_emulator.platform.models.object_permissions import ObjectPermissions
from workspace_emulator.platform.models.personal_tokens import PersonalTokens
from workspace_emulator.platform.models.repos import Repos
from workspace_emulator.platform.models.secret_scopes import SecretScopes
from workspace_emulator.platform.models.secrets import Secrets
from workspace_emulator.storage import Database


@dataclass
class Workspace:
    workspace_id: int
    base_url: str
    identity: IdentityProvider
    directory: Directory
    clusters: Clusters
    cluster_policies: ClusterPolicies
    jobs: Jobs
    secret_scopes: SecretScopes
    ip_access_lists: IpAccessLists
    repos: Repos
    catalogs: Catalogs
    secrets: Secrets
    object_permissions: ObjectPermissions
    personal_tokens: PersonalTokens
    # The workspace as an Azure resource: its id, and the address its management tokens
    # are for (platform/workspace_admission.py).
    azure_resource_id: str = ""
    management_resource: str = ""

    @classmethod
    def open(
        cls, db: Database, identity: IdentityProvider, workspace_id: int, metastore_id: str,
        base_url: str, transition_seconds: float, azure_resource_id: str = "",
        management_resource: str = "",
    ) -> Workspace:
        directory = Directory(db, identity.application_display_name)
        cluster_policies = ClusterPolicies(db)
        clusters = Clusters(db, transition_seconds, cluster_policies)
        repos = Repos(db)
        object_permissions = ObjectPermissions(db, directory)
        object_permissions.serve("clusters", clusters.exists)
        object_permissions.serve("cluster-policies", cluster_policies.exists)
        object_permissions.serve("repos", repos.exists)
        return cls(
            workspace_id=workspace_id,
            base_url=base_url,
            identity=identity,
            directory=directory,
            clusters=clusters,
            cluster_policies=cluster_policies,
            jobs=Jobs(db, directory, clusters, transition_seconds, base_url, workspace_id),
            secret_scopes=SecretScopes(db),
            ip_access_lists=IpAccessLists(db),
            repos=repos,
            catalogs=Catalogs(db, directory, metastore_id),
            secrets=Secrets(db, directory),
            object_permissions=object_permissions,
            personal_tokens=PersonalTokens(db),
            azure_resource_id=azure_resource_id,
            management_resource=management_resource,
        )


__all__ = ["Caller", "Workspace"]
