"""The one list of resource kinds: one line per kind, its name and the module that declares
and implements it (its `KIND`), in the stack program's order (a kind after the kinds its
references point into; the program moves a kind later only where its API name fields name
a list declared after it: providers/core/service_names.py); plug-ins join at the end.

A kind's module loads when that kind is first looked up (`kind_named`), and only then:
the provider host serving only jobs loads the job's module alone; `names()`, `config_keys()`
and `stack_outputs()` load none (they read providers/core/registry_keys.py, generated from
the declarations); the stack program and its config rules load the kinds whose lists the
stack declares (`kind_for_key`). `kinds()` loads every kind's module (what the audit,
adoption and the docs tables iterate). docs/architecture.md gives the figures.
"""

from __future__ import annotations

import importlib

from providers.core import registry_keys
from providers.core.kind import Kind

# Adding a kind: its module (model, provider, `KIND = declare(...)`) and its line here.
KINDS: tuple[tuple[str, str], ...] = (
    # The account's groups, assigned to the workspace: before whatever names them there.
    ("AccountGroup", "providers.identity.account_group"),
    ("WorkspaceAssignment", "providers.identity.workspace_assignment"),  # account groups
    ("ServicePrincipal", "providers.identity.service_principal"),
    ("ServicePrincipalSecret", "providers.identity.service_principal_secret"),
    ("AccessControlRuleSet", "providers.identity.access_control_rule_set"),
    ("SecretScope", "providers.secrets.secret_scope"),
    ("Secret", "providers.secrets.secret"),
    ("SecretAcl", "providers.secrets.secret_acl"),
    ("Directory", "providers.workspace.directory"),
    ("Notebook", "providers.workspace.notebook"),  # in the directories
    ("WorkspaceFile", "providers.workspace.workspace_file"),  # in the directories
    # A metastore and its assignment: what Unity Catalog's objects below are made in.
    ("Metastore", "providers.unity_catalog.metastore"),
    ("MetastoreAssignment", "providers.unity_catalog.metastore_assignment"),
    # Unity Catalog: what pipelines write into, and the volumes files are uploaded to.
    ("StorageCredential", "providers.unity_catalog.storage_credential"),
    ("ExternalLocation", "providers.unity_catalog.external_location"),
    # Bound and granted by name:
    ("ServiceCredential", "providers.unity_catalog.service_credential"),
    ("CatalogBinding", "providers.unity_catalog.catalog_binding"),
    ("Connection", "providers.unity_catalog.connection"),  # what foreign catalogs name
    ("Catalog", "providers.unity_catalog.catalog"),
    ("Schema", "providers.unity_catalog.schema"),
    ("Volume", "providers.unity_catalog.volume"),
    ("VolumeFile", "providers.unity_catalog.volume_file"),  # in the volumes
    # Machine learning: models in the schemas, experiments in the folders.
    ("RegisteredModel", "providers.ml.registered_model"),  # in the catalogs' schemas
    ("Experiment", "providers.ml.experiment"),  # in the directories
    ("InstancePool", "providers.compute.instance_pool"),
    # The compute a job's clusters and tasks name by item: before the jobs.
    ("ClusterPolicy", "providers.compute.cluster_policy"),
    ("Cluster", "providers.compute.cluster"),
    ("ClusterState", "providers.compute.cluster_state"),
    ("SqlWarehouse", "providers.sql.sql_warehouse"),
    # On the warehouses, in the workspace's folders; before the jobs whose tasks run them:
    ("Query", "providers.sql.query"),
    ("Alert", "providers.sql.alert"),  # on the queries
    ("Dashboard", "providers.dashboards.dashboard"),
    # After what its libraries name and where it publishes (notebooks, files, folders,
    # catalogs, schemas), before the jobs that run it:
    ("Pipeline", "providers.pipelines.pipeline"),
    ("PipelineUpdate", "providers.pipelines.pipeline_update"),
    # Named by the jobs' webhook notifications: before the jobs.
    ("NotificationDestination", "providers.workspace.notification_destination"),
    ("Job", "providers.jobs.job"),
    ("JobPermissions", "providers.jobs.job_permissions"),
    ("RepoBranch", "providers.workspace.repo_branch"),
    ("JobRun", "providers.jobs.job_run"),
    ("Group", "providers.identity.group"),
    ("GroupMember", "providers.identity.group_member"),
    ("User", "providers.identity.user"),
    # The workspace entitlements of groups, users, principals (assigned ones too).
    ("Entitlements", "providers.identity.entitlements"),
    ("GitCredential", "providers.workspace.git_credential"),
    ("Repo", "providers.workspace.repo"),
    # Serving the models; an app's resources name secrets, warehouses, endpoints and jobs:
    ("ServingEndpoint", "providers.serving.serving_endpoint"),
    ("App", "providers.applications.app"),
    # Any object's permissions: after every list its `object_id` may name an item of.
    ("Permissions", "providers.access.permissions"),
    ("IpAccessList", "providers.workspace.ip_access_list"),
    ("WorkspaceConf", "providers.workspace.workspace_conf"),
    ("Grants", "providers.unity_catalog.grants"),
    ("Grant", "providers.unity_catalog.grant"),
    # A metastore's root credential (a storage credential's id).
    ("MetastoreDataAccess", "providers.unity_catalog.metastore_data_access"),
    ("Token", "providers.identity.token"),  # on behalf of the service principals
    # Typed workspace settings (one object per workspace each; typed_setting.py):
    ("DefaultNamespaceSetting", "providers.workspace.default_namespace_setting"),
    ("DefaultWarehouseIdSetting", "providers.workspace.default_warehouse_id_setting"),
    ("RestrictWorkspaceAdminsSetting", "providers.workspace.restrict_workspace_admins_setting"),
    ("DisableLegacyAccessSetting", "providers.workspace.disable_legacy_access_setting"),
    ("DisableLegacyDbfsSetting", "providers.workspace.disable_legacy_dbfs_setting"),
    ("SqlResultsDownloadSetting", "providers.workspace.sql_results_download_setting"),
    ("DashboardEmailSubscriptionsSetting",
     "providers.workspace.dashboard_email_subscriptions_setting"),
    ("LlmProxyPartnerPoweredSetting", "providers.workspace.llm_proxy_partner_powered_setting"),
    ("DashboardEmbeddingPolicySetting", "providers.workspace.dashboard_embedding_policy_setting"),
    ("DashboardEmbeddingDomainsSetting", "providers.workspace.dashboard_embedding_domains_setting"),
    ("AutomaticClusterUpdateSetting", "providers.workspace.automatic_cluster_update_setting"),
    ("ComplianceSecurityProfileSetting", "providers.workspace.compliance_security_profile_setting"),
    ("EnhancedSecurityMonitoringSetting",
     "providers.workspace.enhanced_security_monitoring_setting"),
)


class UnknownKind(LookupError):
    """A name no registered kind has; the message names it."""


# Every registered kind by name, in order: its module until first looked up, then the kind.
_kinds: dict[str, str | Kind] = dict(KINDS)


def names() -> list[str]:
    """Every registered kind's name, in order (loads no kind's module)."""
    return list(_kinds)


def kind_named(name: str) -> Kind:
    try:
        entry = _kinds[name]
    except KeyError:
        raise UnknownKind(
            f"no resource kind is named {name!r} (registered: {', '.join(_kinds)})"
        ) from None
    if isinstance(entry, Kind):
        return entry
    kind = _declared_in(entry, name)
    _kinds[name] = kind
    return kind


def _declared_in(module: str, name: str) -> Kind:
    kind = getattr(importlib.import_module(module), "KIND", None)
    if not isinstance(kind, Kind) or kind.name != name:
        raise RuntimeError(
            f"{module} does not declare the {name} kind: end it with "
            f'KIND = declare(name="{name}", provider=<its provider>, ...)'
        )
    indexed = registry_keys.KEYS.get(name)
    if indexed is not None and indexed != _keys_of(kind):
        raise RuntimeError(
            f"providers/core/registry_keys.py says {name} is {indexed}, its declaration "
            f"{_keys_of(kind)}: run `python -m tools.kinds_table`"
        )
    return kind


def _keys_of(kind: Kind) -> tuple[str | None, str | None]:
    """(config key, stack output name) of a kind, as registry_keys.py records them."""
    return kind.config_key, kind.stack_output[0] if kind.stack_output else None


def _keys_of_named(name: str) -> tuple[str | None, str | None]:
    entry = _kinds[name]
    if isinstance(entry, Kind):
        return _keys_of(entry)
    indexed = registry_keys.KEYS.get(name)
    # A kind the index does not know yet (not regenerated): loaded to be asked.
    return indexed if indexed is not None else _keys_of(kind_named(name))


def config_keys() -> dict[str, str]:
    """Every registered kind's stack-config key -> the kind's name, in order (loads no
    kind's module)."""
    return {key: name for name in _kinds if (key := _keys_of_named(name)[0])}


def stack_outputs() -> dict[str, str]:
    """The config key -> the stack output name of every kind that has one (loads none)."""
    return {key: output for name in _kinds
            for key, output in [_keys_of_named(name)] if key and output}


def kind_for_key(key: str) -> Kind:
    """The kind of the stack-config list `key` (loads that kind's module alone)."""
    name = config_keys().get(key)
    if name is None:
        raise UnknownKind(f"no resource kind has the config key {key!r}")
    return kind_named(name)


def kinds() -> list[Kind]:
    """Every registered kind, in order (loads every kind's module)."""
    return [kind_named(name) for name in _kinds]


def by_config_key() -> dict[str, Kind]:
    return {kind.config_key: kind for kind in kinds() if kind.config_key}


def register(kind: Kind) -> None:
    """Adds a kind declared outside this package (a plug-in, or a test's extra kind)."""
    if kind.name in _kinds:
        raise ValueError(f"a kind named {kind.name!r} is registered already")
    _kinds[kind.name] = kind


def unregister(kind: Kind) -> None:
    del _kinds[kind.name]
