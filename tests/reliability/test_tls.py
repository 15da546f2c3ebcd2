"""TLS verification cannot be switched off silently: against a server whose certificate
nobody trusts, every call fails as a TLS failure, also with the environment variables that
loosen other HTTP clients (empty CA bundle variables, PYTHONHTTPSVERIFY=0), and there is no
connection setting that turns verification off. Trusting the server's CA is an explicit act
(REQUESTS_CA_BUNDLE=<file>), and then the same call gets through TLS."""

from __future__ import annotations

import http.server
import json
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from providers.client import Connection, WorkspaceError, WorkspaceUnreachable, client_for
from tests.conftest import forget_what_clients_cached_per_address


class NotFoundHandler(http.server.BaseHTTPRequestHandler):
    def _answer(self) -> None:
        body = json.dumps({"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "nothing"})
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    do_GET = do_POST = _answer

    def log_message(self, *_args) -> None:
        pass


@pytest.fixture(scope="module")
def untrusted_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """An https server on loopback with a self-signed certificate; (its URL, the cert)."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFoundHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", cert
    finally:
        server.shutdown()


def call(url: str, **settings) -> WorkspaceError:
    # every call is a first one: no client or token of the one before
    forget_what_clients_cached_per_address()
    connection = Connection(
        base_url=url,
        auth_url=url,
        tenant_id="t",
        client_id="c",
        client_secret=SecretStr("s"),
        resource="2ff814a6-3304-4ab8-85cb-cd0e6f879c1d",
        max_attempts=1,
        **settings,
    )
    with pytest.raises(WorkspaceError) as caught:
        client_for(connection).get("/api/2.0/clusters/list")
    return caught.value


LOOSENING_ENV = {
    "REQUESTS_CA_BUNDLE": "",
    "CURL_CA_BUNDLE": "",
    "PYTHONHTTPSVERIFY": "0",
    "SSL_CERT_FILE": "",
}


def test_an_untrusted_certificate_fails_as_tls(untrusted_server) -> None:
    url, _ = untrusted_server
    error = call(url)
    assert isinstance(error, WorkspaceUnreachable) and error.code == "TLS_FAILED"
    assert "certificate" in str(error).lower()


@pytest.mark.parametrize("variable", sorted(LOOSENING_ENV))
def test_environment_cannot_switch_verification_off(
    untrusted_server, monkeypatch, variable
) -> None:
    url, _ = untrusted_server
    monkeypatch.setenv(variable, LOOSENING_ENV[variable])
    error = call(url)
    assert isinstance(error, WorkspaceUnreachable) and error.code == "TLS_FAILED"


def test_no_connection_setting_switches_verification_off(untrusted_server) -> None:
    url, _ = untrusted_server
    assert not {f for f in Connection.model_fields if "verif" in f or "tls" in f or "ssl" in f}
    for name in ("verify", "verify_tls", "insecure_skip_verify", "tls_verify", "ssl_verify"):
        error = call(url, **{name: False})  # unknown keys are dropped: verification stays
        assert isinstance(error, WorkspaceUnreachable) and error.code == "TLS_FAILED"


def test_trusting_the_ca_explicitly_gets_through_tls(untrusted_server, monkeypatch) -> None:
    url, cert = untrusted_server
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert))
    error = call(url)
    assert getattr(error, "code", None) != "TLS_FAILED"
    assert error.status == 404  # the server's own answer: TLS was not the problem
