"""The privileges Grants and Grant check before any call are the emulator's and the SDK's:
the providers keep their own copy of the rule (they never import the emulator), held equal
here."""

from __future__ import annotations

import pytest

from providers.client.sdk_shapes import SdkEnum, enum_values
from providers.unity_catalog import uc_privileges
from workspace_emulator.platform.areas.unity_catalog.unity_catalog import privileges as emulated


def test_the_known_privileges_are_the_emulators_and_the_sdks() -> None:
    assert uc_privileges.KNOWN == emulated.KNOWN
    assert uc_privileges.KNOWN <= set(enum_values(SdkEnum("catalog", "Privilege")))


def test_each_securable_type_takes_the_emulators_privileges() -> None:
    assert {t.upper(): p for t, p in uc_privileges.APPLICABLE.items()} == emulated.APPLICABLE


@pytest.mark.parametrize(
    ("privilege", "securable_type", "says"),
    [
        ("SELEC", "catalog", "did you mean SELECT?"),
        ("select", "schema", "did you mean SELECT?"),
        ("USE CATALOG", "catalog", "did you mean USE_CATALOG?"),
        ("CREATE_EXTERNAL_TABLE", "catalog", "does not apply to a catalog"),
        ("USE_CATALOG", "volume", "does not apply to a volume"),
        ("CREATE_EXTERNAL_LOCATION", "external_location", "does not apply"),
        ("BOGUS_THING_ENTIRELY", "catalog", "unknown privilege 'BOGUS_THING_ENTIRELY'"),
        ("ACESS", "credential", "unknown privilege 'ACESS'; did you mean ACCESS?"),
        ("SELECT", "credential", "SELECT does not apply to a service credential; it takes "
                                 "ACCESS, ALL_PRIVILEGES, CREATE_CONNECTION, MANAGE"),
        ("ACCESS", "storage_credential", "ACCESS does not apply to a storage credential"),
    ],
)
def test_a_privilege_that_does_not_apply_is_named(privilege, securable_type, says) -> None:
    assert says in (uc_privileges.privilege_problem(privilege, securable_type) or "")


@pytest.mark.parametrize(
    ("privilege", "securable_type"),
    [("SELECT", "catalog"), ("USE_SCHEMA", "catalog"), ("READ_VOLUME", "volume"),
     ("CREATE_EXTERNAL_LOCATION", "storage_credential"), ("READ_FILES", "external_location"),
     ("ACCESS", "credential"), ("CREATE_CONNECTION", "credential"), ("MANAGE", "credential"),
     ("ALL_PRIVILEGES", "credential")],
)
def test_a_privilege_that_applies_passes(privilege, securable_type) -> None:
    assert uc_privileges.privilege_problem(privilege, securable_type) is None


@pytest.mark.parametrize(
    ("securable_type", "value", "expected"),
    [("catalog", "Main", "main"), ("schema", "Main.Sales", "main.sales"),
     ("volume", "m.s.V", "m.s.v"), ("external_location", "Landing", "Landing")],
)
def test_full_names_fold_where_the_service_folds(securable_type, value, expected) -> None:
    assert uc_privileges.full_name_of(securable_type, value) == expected


@pytest.mark.parametrize(
    ("securable_type", "value"),
    [("catalog", "a.b"), ("schema", "main"), ("volume", "a.b"), ("schema", "a..b"),
     ("catalog", "has space"), ("storage_credential", "a/b")],
)
def test_a_full_name_of_the_wrong_shape_is_refused(securable_type, value) -> None:
    with pytest.raises(ValueError, match="is named"):
        uc_privileges.full_name_of(securable_type, value)


def test_a_storage_privilege_on_a_credential_says_where_it_belongs() -> None:
    problem = uc_privileges.privilege_problem("READ_FILES", "credential") or ""
    assert problem.startswith("READ_FILES does not apply to a service credential")
    assert problem.endswith("declared with securable_type storage_credential)")
    assert "storage_credential" not in (uc_privileges.privilege_problem("SELECT", "credential")
                                        or "")


def test_a_credential_is_one_name_whose_case_is_kept() -> None:
    assert uc_privileges.securable_type_of("CREDENTIAL") == "credential"
    assert uc_privileges.full_name_of("credential", "Calls-Svc") == "Calls-Svc"
    with pytest.raises(ValueError, match="a credential is named its name"):
        uc_privileges.full_name_of("credential", "a.b")


def test_a_registered_model_is_a_function_of_three_folded_parts() -> None:
    assert uc_privileges.securable_type_of("FUNCTION") == "function"
    assert uc_privileges.full_name_of("function", "Main.ML.Churn") == "main.ml.churn"
    with pytest.raises(ValueError, match=r"a function \(a registered model\) is named "
                                         r"catalog\.schema\.function"):
        uc_privileges.full_name_of("function", "main.churn")
    assert uc_privileges.privilege_problem("EXECUTE", "function") is None
    assert "READ_VOLUME does not apply to a function (a registered model); it takes " \
        "ALL_PRIVILEGES, APPLY_TAG, EXECUTE, MANAGE" in (
            uc_privileges.privilege_problem("READ_VOLUME", "function") or "")


def test_principals_match_as_the_service_matches_them() -> None:
    assert uc_privileges.principal_key("Bob@Example.com") == "bob@example.com"
    assert uc_privileges.principal_key("Data-Engineers") == "Data-Engineers"


@pytest.mark.parametrize(
    ("spelled", "securable_type"),
    [("TABLE", "table"), ("view", "table"), ("MATERIALIZED_VIEW", "table"),
     ("materialized view", "table"), ("registered_model", "function"), ("MODEL", "function"),
     ("METASTORE", "metastore"), ("connection", "connection"), ("SHARE", "share"),
     ("recipient", "recipient"), ("provider", "provider"), ("clean-room", "clean_room"),
     ("service_credential", "credential")],
)
def test_every_securable_type_of_the_permissions_api_is_reached(spelled, securable_type) -> None:
    assert uc_privileges.securable_type_of(spelled) == securable_type


def test_an_unknown_securable_type_names_the_served_ones() -> None:
    with pytest.raises(ValueError, match=r"must be one of catalog, schema, volume, .*table, "
                                         r"metastore, connection, share, recipient, provider, "
                                         r"clean_room; got 'widget'"):
        uc_privileges.securable_type_of("widget")


@pytest.mark.parametrize(
    ("securable_type", "privilege", "says"),
    [("table", "USE_SCHEMA", "USE_SCHEMA does not apply to a table (a view, a materialized "
                             "view); it takes ALL_PRIVILEGES, APPLY_TAG, BROWSE, MANAGE, "
                             "MODIFY, REFRESH, SELECT"),
     ("metastore", "SELECT", "SELECT does not apply to a metastore; it takes CREATE_CATALOG, "
                             "CREATE_CLEAN_ROOM, CREATE_CONNECTION, CREATE_EXTERNAL_LOCATION, "
                             "CREATE_PROVIDER, CREATE_RECIPIENT, CREATE_SERVICE_CREDENTIAL, "
                             "CREATE_SHARE, CREATE_STORAGE_CREDENTIAL, MANAGE_ALLOWLIST, "
                             "SET_SHARE_PERMISSION, USE_MARKETPLACE_ASSETS, USE_PROVIDER, "
                             "USE_RECIPIENT, USE_SHARE"),
     ("connection", "SELECT", "SELECT does not apply to a connection; it takes ALL_PRIVILEGES, "
                              "CREATE_FOREIGN_CATALOG, MANAGE, USE_CONNECTION"),
     ("share", "MODIFY", "MODIFY does not apply to a share; it takes MANAGE, SELECT"),
     ("recipient", "SELECT", "SELECT does not apply to a recipient; it takes MANAGE"),
     ("provider", "USE_PROVIDER", "USE_PROVIDER does not apply to a provider; it takes MANAGE"),
     ("clean_room", "SELECT", "SELECT does not apply to a clean room; it takes BROWSE, "
                              "EXECUTE_CLEAN_ROOM_TASK, MANAGE, MODIFY_CLEAN_ROOM")],
)
def test_each_new_type_names_its_allowed_privileges(securable_type, privilege, says) -> None:
    assert uc_privileges.privilege_problem(privilege, securable_type) == says


@pytest.mark.parametrize(
    ("securable_type", "privilege"),
    [("table", "SELECT"), ("table", "REFRESH"), ("metastore", "CREATE_CATALOG"),
     ("metastore", "USE_SHARE"), ("connection", "USE_CONNECTION"), ("share", "SELECT"),
     ("recipient", "MANAGE"), ("provider", "MANAGE"), ("clean_room", "MODIFY_CLEAN_ROOM")],
)
def test_a_privilege_of_a_new_type_passes(securable_type, privilege) -> None:
    assert uc_privileges.privilege_problem(privilege, securable_type) is None


def test_a_table_is_named_in_three_folded_parts() -> None:
    assert uc_privileges.full_name_of("table", "Main.Sales.Orders") == "main.sales.orders"
    with pytest.raises(ValueError, match=r"a table \(a view, a materialized view\) is named "
                                         r"catalog\.schema\.table"):
        uc_privileges.full_name_of("table", "sales.orders")


def test_a_metastore_is_named_by_its_id() -> None:
    metastore = "0A1B2C3D-0000-4000-8000-000000000001"
    assert uc_privileges.full_name_of("metastore", metastore) == metastore.lower()
    with pytest.raises(ValueError, match=r"a metastore is named by its id, a UUID .* \(not its "
                                         r"name\); got 'primary'"):
        uc_privileges.full_name_of("metastore", "primary")


@pytest.mark.parametrize("securable_type", ["connection", "share", "recipient", "provider",
                                            "clean_room"])
def test_the_names_beside_the_catalogs_are_one_part_keeping_their_case(securable_type) -> None:
    assert uc_privileges.full_name_of(securable_type, "Sales_Feed") == "Sales_Feed"
    with pytest.raises(ValueError, match="is named its name"):
        uc_privileges.full_name_of(securable_type, "a.b")
