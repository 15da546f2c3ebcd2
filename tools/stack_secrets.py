"""Secrets of a stack's settings file under Pulumi's passphrase provider, in Python.

The tests and drills copy the `local` stack's objects into scratch stacks of their own (own
salt, same development passphrase): they read the demo secret's value decrypted and write
every secret value of the kinds' lists encrypted again, as `pulumi config set --secret
--path` would, since the program refuses a plain one (stacks/config_rules.py).

The scheme is Pulumi's (sdk/go/common/resource/config/crypt.go and
pkg/secrets/passphrase/manager.go): the stack's `encryptionsalt` is `v1:<salt>:<the text
"pulumi" encrypted>`; the key is PBKDF2-SHA256 of the passphrase over the salt, 1,000,000
rounds, 32 bytes; a value is `v1:<nonce>:<AES-256-GCM ciphertext>`, both base64.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
from collections.abc import Mapping
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from providers.core.registry import by_config_key

NAMESPACE = "workspace"


@functools.cache
def _key(passphrase: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", passphrase.encode(), salt, 1_000_000, 32)


class Crypter:
    """Encrypts and decrypts config values of one stack (its `encryptionsalt`)."""

    def __init__(self, passphrase: str, encryption_salt: str) -> None:
        version, salt, check = encryption_salt.split(":", 2)
        if version != "v1":
            raise ValueError(f"unknown encryptionsalt version {version!r}")
        self._key = _key(passphrase, base64.b64decode(salt))
        if self.decrypt(check) != "pulumi":
            raise ValueError("incorrect passphrase")

    def encrypt(self, text: str) -> str:
        nonce = os.urandom(12)
        sealed = AESGCM(self._key).encrypt(nonce, text.encode(), None)
        return f"v1:{base64.b64encode(nonce).decode()}:{base64.b64encode(sealed).decode()}"

    def decrypt(self, ciphertext: str) -> str:
        version, nonce, sealed = ciphertext.split(":")
        if version != "v1":
            raise ValueError(f"unknown value version {version!r}")
        opened = AESGCM(self._key).decrypt(base64.b64decode(nonce), base64.b64decode(sealed), None)
        return opened.decode()


def is_encrypted(value: Any) -> bool:
    return isinstance(value, Mapping) and set(value) == {"secure"} and isinstance(
        value["secure"], str
    )


def decrypted(value: Any, crypter: Crypter) -> Any:
    """`value` with every `{secure: ...}` in it decrypted."""
    if is_encrypted(value):
        return crypter.decrypt(value["secure"])
    if isinstance(value, Mapping):
        return {k: decrypted(v, crypter) for k, v in value.items()}
    if isinstance(value, list):
        return [decrypted(v, crypter) for v in value]
    return value


def encrypt_secret_inputs(config: dict[str, Any], crypter: Crypter) -> dict[str, Any]:
    """The `config` section of a settings file with every plain secret input of the kinds'
    lists (`Kind.secrets`: a Secret's value) encrypted in place."""
    result = dict(config)
    for key, kind in by_config_key().items():
        items = result.get(f"{NAMESPACE}:{key}")
        fields = [f for f in kind.secrets if f in kind.model.model_fields]
        if not fields or not isinstance(items, list):
            continue
        result[f"{NAMESPACE}:{key}"] = [
            {k: _encrypted_leaves(v, crypter) if k in fields else v for k, v in item.items()}
            if isinstance(item, dict) and holds_secret(kind, item) else item
            for item in items
        ]
    return result


def holds_secret(kind: Any, item: Mapping[str, Any]) -> bool:
    """Whether a kind's item holds a secret input: every item, but of a kind that says
    which of its objects do (`Adoption.holds_secret`: a notification destination's e-mail
    addresses are no secret, its webhook URL is)."""
    test = kind.adoption.holds_secret
    return test is None or bool(test(item))


def _encrypted_leaves(value: Any, crypter: Crypter) -> Any:
    """A secret input encrypted: a string whole, an object's strings each (a webhook
    destination's URL and password, a service principal's client secret)."""
    if isinstance(value, str):
        return {"secure": crypter.encrypt(value)}
    if isinstance(value, Mapping) and not is_encrypted(value):
        return {k: _encrypted_leaves(v, crypter) for k, v in value.items()}
    return value
