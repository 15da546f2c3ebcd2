"""Every sign-in method (`workspace:authType`, issue 32) under the real engine against the
emulator over HTTP: a stack whose `workspace:*` config signs in that way declares a secret
scope, and goes through up, a second up that changes and writes nothing, and destroy. The
credential (a personal access token, an OAuth secret, a client secret) and every token the
emulator issued on the way (identity-provider, management, managed-identity and workspace
OAuth tokens, GitHub's OIDC ID tokens) are in no `pulumi stack export`, no output of the
engine (its verbose log, `-v=9 --logtostderr --logflow`, for the up) and no request logged.

Also: the management-token bootstrap of a Contributor that is not a member yet (refused at
preview without `workspace:azureWorkspaceResourceId`, admitted as an admin with it), and a
wrong credential per family (a personal access token, an OAuth secret) failing `pulumi
preview` before anything is written, naming the method and the config key, not the value.

One emulator for the module, with a data directory: the hashes of the tokens it issued are
read from it to find a token in a text by its shape (tests/reliability/leaks.py).
"""

from __future__ import annotations

import json
import re
import stat
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.conftest import fresh_emulator
from tests.e2e.conftest import (
    PlatformApi,
    StackFactory,
    assert_no_changes,
    platform_writes,
    write_config,
)
from tests.reliability.leaks import issued_token_hashes, leaked_tokens
from tools.drills.local_stack import write_stack_config
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

# The engine's most verbose logging, flowed to the language and provider hosts.
VERBOSE = ("-v=9", "--logtostderr", "--logflow")
ADMINS = "100000000000001"  # the `admins` group of the initial data
SCIM = "/api/2.0/preview/scim/v2/ServicePrincipals"
# Applications of the initial data (workspace_emulator/initial_data.json).
CONTRIBUTOR = ("e975b201-90c6-4b57-ba11-896229ddad5b", "app6-Qm3vTzR8pLk2WnY7cXa4HdJ1")
GITHUB_DEPLOYER = "4dc3c507-f7db-4b70-b8fc-39d3993d9b21"
PLATFORM_HOST = "0416c195-1fe3-4794-a4ff-54bedf9a50fb"  # the system-assigned managed identity
CI_DEPLOYER = ("65dc6d7a-ea8b-49b9-b4bb-de840e250c5d", "app5-7Gr1slGJoNpGN2tout6ZdB37")
# An ID token (a JWT) in a text: the GitHub stand-in's tokens are JWTs, the emulator's access
# tokens are not, so any JWT in an output is a leak.
JWT_SHAPE = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")




@pytest.fixture(scope="module")
def emulator_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("emulator")


@pytest.fixture(scope="module")
def emulator(emulator_data: Path) -> Iterator[EmulatorInfo]:
    """One emulator for the module (the e2e conftest's is per class), with a data directory."""
    with fresh_emulator(data_dir=emulator_data) as info:
        yield info


@pytest.fixture
def api(emulator: EmulatorInfo) -> PlatformApi:
    """The bootstrap admin's calls to the workspace."""
    return PlatformApi(emulator)


# --- stacks, principals, secrets --------------------------------------------------------


def method_stack(
    make: StackFactory,
    info: EmulatorInfo,
    scope: str,
    config: dict[str, Any],
    secrets: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> PulumiCli:
    """A stack of the project's program declaring the secret scope `scope`, signing in with
    `config` (`workspace:*` keys without the namespace) and the secret `secrets`; the engine
    (and so the provider host it starts) runs with `env`."""
    stack = make(wire_form="public", secret="")  # no workspace:clientSecret
    write_stack_config(stack, {
        "workspace:baseUrl": info.base_url,
        "workspace:wireForm": "public",
        "workspace:allowInsecureHttp": True,
        **{f"workspace:{key}": value for key, value in config.items()},
        "workspace:secretScopes": [{"name": scope}],
    })
    for key, value in (secrets or {}).items():
        stack.set_config(f"workspace:{key}", value, secret=True)
    stack.extra_env.update(env or {})
    return stack


def azure_config(info: EmulatorInfo, auth_type: str, client_id: str) -> dict[str, Any]:
    """The identity provider's settings of an Azure method."""
    return {
        "authType": auth_type,
        "authUrl": info.auth_url,
        "tenantId": info.tenant_id,
        "clientId": client_id,
        "resource": info.resource,
    }


def scopes(api: PlatformApi) -> set[str]:
    return {s["name"] for s in api.call("GET", "/api/2.0/secrets/scopes/list").get("scopes", [])}


def principal(api: PlatformApi, application_id: str) -> dict[str, Any] | None:
    """The workspace's service principal of `application_id`, None where it is no member."""
    found = api.call("GET", SCIM, params={"filter": f'applicationId eq "{application_id}"'})
    return next(iter(found.get("Resources") or []), None)


def admitted_as_admin(api: PlatformApi, application_id: str) -> None:
    """Adds the application to the workspace, in `admins`, unless it is a member already."""
    if principal(api, application_id) is None:
        api.call("POST", SCIM, json={
            "applicationId": application_id,
            "displayName": f"e2e-{application_id[:8]}",
            "groups": [{"value": ADMINS}],
        })


def group_ids(found: dict[str, Any] | None) -> set[str]:
    return {g["value"] for g in (found or {}).get("groups", [])}


def personal_access_token(api: PlatformApi, comment: str) -> str:
    """A new personal access token of the bootstrap admin."""
    made = api.call("POST", "/api/2.0/token/create",
                    json={"comment": comment, "lifetime_seconds": 3600})
    value: str = made["token_value"]
    return value


# --- nothing in plain text ------------------------------------------------------------------


def leaks(text: str, credentials: list[str], data_dir: Path) -> list[str]:
    """What of a credential or an issued token `text` holds: a credential by value, an access
    token by shape and hash, an ID token (a JWT) by shape."""
    found = [f"credential {value[:4]}..." for value in credentials if value in text]
    found += [f"token {t}" for t in leaked_tokens(text, issued_token_hashes(data_dir))]
    return found + [f"ID token {jwt[:10]}..." for jwt in set(JWT_SHAPE.findall(text))]


def deploy_and_destroy(
    stack: PulumiCli,
    info: EmulatorInfo,
    data_dir: Path,
    scope: str,
    credentials: list[str],
    method: str,
) -> None:
    """Up (the engine's log at its most verbose), a second up without changes or writes,
    destroy; the scope made and gone; the credentials and every issued token in plain text
    in no output, export, settings file or request."""
    api = PlatformApi(info)
    assert scope not in scopes(api), f"{method}: the scope before up"
    clear_request_log(info)
    up = stack.run("up", "--yes", "--skip-preview", "--stack", stack.stack, *VERBOSE)
    assert re.search(r"^I\d{4} .*RegisterResource", up.stderr, re.M), f"{method}: no -v=9 log"
    assert scope in scopes(api), f"{method}: up made no scope"
    assert_no_changes(stack, info, method)
    exported = json.dumps(stack.export())
    logged = json.dumps(request_log(info))
    destroy = stack.destroy()
    assert scope not in scopes(api), f"{method}: destroy left the scope"
    settings = (stack.project_dir / f"Pulumi.{stack.stack}.yaml").read_text()
    texts = {
        "up -v=9": up.stdout + up.stderr,
        "stack export": exported,
        "destroy": destroy.stdout + destroy.stderr,
        "request log": logged,
        "settings file": settings,
    }
    assert issued_token_hashes(data_dir), "the emulator issued no token"
    found = {where: leaks(text, credentials, data_dir) for where, text in texts.items()}
    assert found == {where: [] for where in texts}, f"{method}: in plain text"


# --- one scenario per method ----------------------------------------------------------------


def test_pat(workspace_stack: StackFactory, emulator: EmulatorInfo, emulator_data: Path,
             api: PlatformApi) -> None:
    token = personal_access_token(api, "e2e pat")
    stack = method_stack(workspace_stack, emulator, "sign-in-pat", {"authType": "pat"},
                         secrets={"token": token})
    deploy_and_destroy(stack, emulator, emulator_data, "sign-in-pat", [token], "pat")


def test_oauth_m2m(workspace_stack: StackFactory, emulator: EmulatorInfo, emulator_data: Path,
                   api: PlatformApi) -> None:
    made = api.call("POST", SCIM, json={"displayName": "e2e-oauth-m2m",
                                        "groups": [{"value": ADMINS}]})
    assert made["applicationId"], "the workspace assigns the application id"
    secret = api.call("POST", f"/api/2.0/accounts/servicePrincipals/{made['id']}/credentials/"
                      "secrets", json={"lifetime": "3600s"})["secret"]
    stack = method_stack(workspace_stack, emulator, "sign-in-oauth-m2m",
                         {"authType": "oauth-m2m", "clientId": made["applicationId"]},
                         secrets={"clientSecret": secret})
    deploy_and_destroy(stack, emulator, emulator_data, "sign-in-oauth-m2m", [secret], "oauth-m2m")


def test_management_token_admits_a_contributor(
    workspace_stack: StackFactory, emulator: EmulatorInfo, emulator_data: Path, api: PlatformApi
) -> None:
    """`azure-contributor` is no member of the workspace, but Contributor on its Azure
    resource: without the workspace's resource id the workspace refuses it at preview; with
    it, the first call sends the management token and admits it as an admin."""
    client_id, secret = CONTRIBUTOR
    scope = "sign-in-management-token"
    assert principal(api, client_id) is None, "not a member of the initial data"
    stack = method_stack(workspace_stack, emulator, scope,
                         azure_config(emulator, "azure-client-secret", client_id),
                         secrets={"clientSecret": secret})

    clear_request_log(emulator)
    refused = stack.preview(check=False)
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0, "a preview of a principal the workspace does not know"
    assert "auth type 'azure-client-secret'" in output, output
    assert "Me: 401" in output and "User not authorized" in output, output
    assert "(workspace:azureWorkspaceResourceId)" in output, "the way in is named"
    assert secret not in output
    assert platform_writes(emulator) == [], "the refused preview wrote to the workspace"
    assert principal(api, client_id) is None, "still no member"

    write_config(stack, {"workspace:azureWorkspaceResourceId": emulator.workspace_resource_id})
    deploy_and_destroy(stack, emulator, emulator_data, scope, [secret], "management token")
    assert ADMINS in group_ids(principal(api, client_id)), "admitted as an admin"


def test_azure_msi(workspace_stack: StackFactory, emulator: EmulatorInfo, emulator_data: Path,
                   api: PlatformApi) -> None:
    """The machine's system-assigned identity (`platform-host`), through the App Service
    style endpoint the engine's environment names; the provider host inherits it. A managed
    identity is no member of the workspace until an admin adds it."""
    admitted_as_admin(api, PLATFORM_HOST)
    env = {"IDENTITY_ENDPOINT": emulator.managed_identity_endpoint,
           "IDENTITY_HEADER": emulator.managed_identity_header}
    stack = method_stack(workspace_stack, emulator, "sign-in-azure-msi",
                         {"authType": "azure-msi", "resource": emulator.resource}, env=env)
    deploy_and_destroy(stack, emulator, emulator_data, "sign-in-azure-msi",
                       [emulator.managed_identity_header], "azure-msi")


def github_actions_env(info: EmulatorInfo) -> dict[str, str]:
    """The job's OIDC token request, stood in by the emulator; its URL already has a query
    (`?api-version=2.0`): the SDK appends `&audience=...`."""
    assert "?" in info.github_oidc_request_url
    return {"ACTIONS_ID_TOKEN_REQUEST_URL": info.github_oidc_request_url,
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": info.github_oidc_request_token}


def test_github_oidc(workspace_stack: StackFactory, emulator: EmulatorInfo,
                     emulator_data: Path, api: PlatformApi) -> None:
    """`github-deployer`'s federation policy trusts the job's ID token at the workspace's
    token endpoint."""
    admitted_as_admin(api, GITHUB_DEPLOYER)
    stack = method_stack(workspace_stack, emulator, "sign-in-github-oidc",
                         {"authType": "github-oidc", "clientId": GITHUB_DEPLOYER},
                         env=github_actions_env(emulator))
    deploy_and_destroy(stack, emulator, emulator_data, "sign-in-github-oidc",
                       [emulator.github_oidc_request_token], "github-oidc")


def test_github_oidc_azure(workspace_stack: StackFactory, emulator: EmulatorInfo,
                           emulator_data: Path, api: PlatformApi) -> None:
    """`github-deployer`'s federated credential at the identity provider takes the job's ID
    token as a client assertion."""
    admitted_as_admin(api, GITHUB_DEPLOYER)
    stack = method_stack(workspace_stack, emulator, "sign-in-github-oidc-azure",
                         azure_config(emulator, "github-oidc-azure", GITHUB_DEPLOYER),
                         env=github_actions_env(emulator))
    deploy_and_destroy(stack, emulator, emulator_data, "sign-in-github-oidc-azure",
                       [emulator.github_oidc_request_token], "github-oidc-azure")


# The Azure CLI is not installable here (no package of it, nor network to Microsoft), so a
# stand-in answers the two commands the service's SDK runs (AzureCliTokenSource): `az account
# show --output json` (is the CLI signed in as a managed identity?) and `az account
# get-access-token --resource R [--tenant T] --output json`, as the CLI would after `az login
# --service-principal` as the application: a real token of it from the emulator's identity
# provider, in the CLI's shape (`expiresOn` in local time). Each call is logged to a file.
FAKE_AZ = """\
#!{python}
import datetime, json, sys, urllib.parse, urllib.request

args = sys.argv[1:]
with open({calls!r}, "a") as calls:
    calls.write(json.dumps(args) + "\\n")
if args[:2] == ["account", "show"]:
    print(json.dumps({{"tenantId": {tenant!r}, "user": {{"name": {client_id!r},
                                                        "type": "servicePrincipal"}}}}))
elif args[:2] == ["account", "get-access-token"]:
    resource = args[args.index("--resource") + 1]
    if "--tenant" in args and args[args.index("--tenant") + 1] != {tenant!r}:
        sys.exit("ERROR: not signed in to that tenant")
    body = urllib.parse.urlencode({{"grant_type": "client_credentials",
                                    "client_id": {client_id!r}, "client_secret": {secret!r},
                                    "resource": resource}}).encode()
    answer = json.load(urllib.request.urlopen({token_url!r}, body, timeout=10))
    expires = datetime.datetime.now() + datetime.timedelta(
        seconds=int(float(answer["expires_in"])))
    print(json.dumps({{"accessToken": answer["access_token"], "tokenType": "Bearer",
                      "expiresOn": expires.strftime("%Y-%m-%d %H:%M:%S.%f"),
                      "tenant": {tenant!r}}}))
else:
    sys.exit("az stand-in: only `account show` and `account get-access-token`")
"""


def fake_az(directory: Path, info: EmulatorInfo, client_id: str, secret: str) -> Path:
    """Writes the stand-in `az` to `directory`; returns the file its calls are logged to."""
    calls = directory / "az-calls.jsonl"
    script = directory / "az"
    script.write_text(FAKE_AZ.format(python=sys.executable, calls=str(calls),
                                     tenant=info.tenant_id, client_id=client_id, secret=secret,
                                     token_url=info.token_url))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return calls


def test_azure_cli(workspace_stack: StackFactory, emulator: EmulatorInfo, emulator_data: Path,
                   api: PlatformApi, tmp_path: Path) -> None:
    client_id, secret = CI_DEPLOYER
    admitted_as_admin(api, client_id)
    calls = fake_az(tmp_path, emulator, client_id, secret)
    stack = method_stack(workspace_stack, emulator, "sign-in-azure-cli",
                         {"authType": "azure-cli", "resource": emulator.resource,
                          "tenantId": emulator.tenant_id})
    stack.extra_env["PATH"] = f"{tmp_path}:{stack.env()['PATH']}"
    deploy_and_destroy(stack, emulator, emulator_data, "sign-in-azure-cli", [secret],
                       "azure-cli")
    asked = [json.loads(line) for line in calls.read_text().splitlines()]
    assert ["account", "get-access-token", "--resource", emulator.resource, "--output", "json",
            "--tenant", emulator.tenant_id] in asked, asked


def test_databricks_cli(workspace_stack: StackFactory, emulator: EmulatorInfo,
                        emulator_data: Path, api: PlatformApi, tmp_path: Path) -> None:
    """A profile of the service's config file (DATABRICKS_CONFIG_FILE) holding the workspace
    and a personal access token."""
    token = personal_access_token(api, "e2e databricks-cli profile")
    config_file = tmp_path / "databrickscfg"
    config_file.write_text(textwrap.dedent(f"""\
        [DEFAULT]
        host = https://elsewhere.invalid

        [e2e-deploy]
        host = {emulator.base_url}
        token = {token}
        """))
    stack = method_stack(workspace_stack, emulator, "sign-in-databricks-cli",
                         {"authType": "databricks-cli", "profile": "e2e-deploy"},
                         env={"DATABRICKS_CONFIG_FILE": str(config_file)})
    deploy_and_destroy(stack, emulator, emulator_data, "sign-in-databricks-cli", [token],
                       "databricks-cli")


# --- a wrong credential -----------------------------------------------------------------------


@pytest.mark.parametrize("method", ["pat", "oauth-m2m"])
def test_a_wrong_credential_fails_preview_before_any_write(
    workspace_stack: StackFactory, emulator: EmulatorInfo, api: PlatformApi, method: str
) -> None:
    if method == "pat":
        personal_access_token(api, "e2e: a token exists, another is given")
        wrong = "dapi0123456789abcdef0123456789abcdef"
        config, key = {"authType": "pat"}, "token"
    else:
        made = api.call("POST", SCIM, json={"displayName": "e2e-wrong-secret",
                                            "groups": [{"value": ADMINS}]})
        api.call("POST", f"/api/2.0/accounts/servicePrincipals/{made['id']}/credentials/secrets",
                 json={})
        wrong = "dose0123456789abcdef0123456789abcdef"
        config = {"authType": "oauth-m2m", "clientId": made["applicationId"]}
        key = "clientSecret"
    scope = f"sign-in-wrong-{method}"
    stack = method_stack(workspace_stack, emulator, scope, config, secrets={key: wrong})
    clear_request_log(emulator)
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, f"{method}: a wrong credential previewed"
    assert f"auth type {method!r}" in output and f"workspace:{key}" in output, output
    assert wrong not in output, f"{method}: the wrong credential in the output"
    assert platform_writes(emulator) == [], f"{method}: the preview wrote to the workspace"
    assert scope not in scopes(api)
