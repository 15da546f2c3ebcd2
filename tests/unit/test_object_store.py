"""The `pulumi login` URL of the tests' S3 server: everything the engine's s3:// backend
(gocloud v0.27, AWS SDK v1) needs for a custom endpoint is in the URL."""

from urllib.parse import parse_qs, urlsplit

from tools.object_store import REGION, ObjectStore

STORE = ObjectStore(endpoint="http://127.0.0.1:9000", bucket="workspace-state")


def test_backend_url_names_the_endpoint_path_style_plain_http_and_region() -> None:
    url = urlsplit(STORE.backend_url("team/dev"))
    assert (url.scheme, url.netloc, url.path) == ("s3", "workspace-state", "/team/dev")
    assert parse_qs(url.query) == {"endpoint": ["127.0.0.1:9000"],
                                   "s3ForcePathStyle": ["true"], "disableSSL": ["true"],
                                   "region": [REGION]}


def test_without_a_prefix_the_state_is_at_the_bucket_root() -> None:
    assert urlsplit(STORE.backend_url()).path == ""


def test_credentials_for_signing_are_given_to_the_engine() -> None:
    assert set(STORE.env()) == {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}
