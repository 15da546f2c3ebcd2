"""The transport's sessions read the environment's proxy and CA bundle settings as requests
does, once per distinct environment rather than on every call."""

from __future__ import annotations

import pytest
import requests

from providers.client import http

URL = "https://ws.example.test/api/2.0/permissions/jobs/7"
PROXY = "http://proxy.example.test:3128"
SETTINGS_FROM = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
                 "all_proxy", "NO_PROXY", "no_proxy", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


@pytest.fixture
def environment_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A plain environment, and the URLs requests reads the environment's proxies for."""
    for name in SETTINGS_FROM:
        monkeypatch.delenv(name, raising=False)
    reads: list[str] = []
    real = requests.sessions.get_environ_proxies

    def counted(url: str, no_proxy: str | None = None) -> dict[str, str]:
        reads.append(url)
        return real(url, no_proxy=no_proxy)

    monkeypatch.setattr(requests.sessions, "get_environ_proxies", counted)
    return reads


def settings(url: str = URL) -> dict:
    session = http.session_for(http.CallPolicy(), idempotent=True)
    return session.merge_environment_settings(url, {}, None, None, None)


def test_the_environment_is_read_once_per_host_and_environment(environment_reads):
    first = settings()
    assert first == settings() == settings(URL.replace("/7", "/8"))
    assert first["proxies"] == {} and first["verify"] is True
    assert len(environment_reads) == 1
    settings("https://other.example.test/api/2.0/jobs/list")
    assert len(environment_reads) == 2


def test_a_changed_environment_is_read_again(environment_reads, monkeypatch, tmp_path):
    assert settings()["proxies"] == {}
    monkeypatch.setenv("HTTPS_PROXY", PROXY)
    assert settings()["proxies"] == {"https": PROXY}
    monkeypatch.setenv("NO_PROXY", "ws.example.test")
    assert settings()["proxies"] == {}
    bundle = tmp_path / "ca.pem"
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    assert settings()["verify"] == str(bundle)
    assert len(environment_reads) == 4


def test_an_answer_changed_by_its_caller_does_not_reach_the_next_call(environment_reads):
    settings()["proxies"]["https"] = PROXY
    assert settings()["proxies"] == {}


def test_explicit_settings_are_merged_as_requests_does(environment_reads, monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", PROXY)
    session = http.session_for(http.CallPolicy(), idempotent=True)
    explicit = session.merge_environment_settings(URL, {"https": "http://mine:1"}, None, False,
                                                  None)
    assert explicit["proxies"] == {"https": "http://mine:1"} and explicit["verify"] is False
