"""A notification destination's config in the stack's config: an e-mail destination's
addresses are no secret and stay readable; a Slack, webhook or PagerDuty destination's
fields are, so the config rules refuse them in plain text (naming the command that stores
them encrypted) and the stack-secret tooling encrypts each string of them."""

from __future__ import annotations

from typing import Any

import yaml

from providers.core.registry import kind_named
from stacks.config_rules import SECRET_PLACEHOLDER, plain_secret_values
from stacks.pulumi_cli import REPO_ROOT
from tools.drills.local_stack import LOCAL_PASSPHRASE
from tools.stack_secrets import Crypter, decrypted, encrypt_secret_inputs

DESTINATIONS = kind_named("NotificationDestination")
EMAIL = {"name": "on-call", "display_name": "On call",
         "config": {"email": {"addresses": ["oncall@example.com"]}}}
SLACK = {"name": "alerts", "display_name": "Alerts",
         "config": {"slack": {"url": "https://hooks.example.com/T0/B0/secret-part"}}}


def test_only_a_destination_holding_a_secret_must_store_it_encrypted() -> None:
    assert plain_secret_values(DESTINATIONS, [EMAIL]) == []
    assert plain_secret_values(DESTINATIONS, [EMAIL, SLACK]) == [
        "workspace:notificationDestinations[1].config: stored in plain text; set it with "
        "`pulumi config set --secret --path 'workspace:notificationDestinations[1].config' "
        "<secret>`"]
    # As the offline check reads a value stored encrypted.
    stored = {**SLACK, "config": {"slack": {"url": SECRET_PLACEHOLDER}}}
    assert plain_secret_values(DESTINATIONS, [stored]) == []


def test_the_tooling_encrypts_each_string_of_a_secret_config_and_leaves_emails() -> None:
    salt = yaml.safe_load((REPO_ROOT / "Pulumi.local.yaml").read_text())["encryptionsalt"]
    crypter = Crypter(LOCAL_PASSPHRASE, salt)
    config: dict[str, Any] = {"workspace:notificationDestinations": [EMAIL, SLACK]}
    email, slack = encrypt_secret_inputs(config, crypter)["workspace:notificationDestinations"]
    assert email == EMAIL
    url = slack["config"]["slack"]["url"]
    assert set(url) == {"secure"} and "secret-part" not in url["secure"]
    assert decrypted(slack, crypter) == SLACK
