"""A real S3-compatible object store on loopback, for the shared state backend in tests and
drills: moto's server mode (the dev extra of pyproject.toml pins it), one bucket, and the
`s3://` backend URL the Pulumi engine logs in to.

Why S3: the engine's `s3://` backend (gocloud.dev v0.27 with the AWS SDK v1, what Pulumi
3.79 builds with) takes everything a custom endpoint needs from the URL itself:
`endpoint=` (the server), `s3ForcePathStyle=true` (bucket in the path, not the host name),
`disableSSL=true` (plain HTTP on loopback) and `region=`. Its `azblob://` backend needs the
account, key and emulator address in environment variables and a Node.js server beside
the Python tool chain.

    python -m tools.object_store [--port 9000] [--bucket workspace-state]
        runs the server in the foreground and prints the backend URL and credentials
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import requests

HOST = "127.0.0.1"
REGION = "us-east-1"
DEFAULT_BUCKET = "workspace-state"
START_SECONDS = 30.0
# moto accepts any key pair; the engine's AWS SDK needs one to sign its requests.
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "object-store-test", "AWS_SECRET_ACCESS_KEY": "not-a-secret"}


@dataclass(frozen=True)
class ObjectStore:
    """A running S3-compatible server and the bucket the state goes in."""

    endpoint: str  # http://127.0.0.1:<port>
    bucket: str

    def backend_url(self, prefix: str = "") -> str:
        """The `pulumi login` URL of `s3://<bucket>/<prefix>` on this server."""
        path = f"{self.bucket}/{prefix}".rstrip("/")
        return (f"s3://{path}?endpoint={self.endpoint.removeprefix('http://')}"
                f"&s3ForcePathStyle=true&disableSSL=true&region={REGION}")

    def env(self) -> dict[str, str]:
        """What a pulumi process needs besides the URL: credentials to sign with."""
        return {**CREDENTIALS, "AWS_REGION": REGION}

    def client(self) -> Any:
        """A boto3 client of the server, for a test's own look at the bucket."""
        import boto3  # the dev extra; only tests and drills look inside the bucket

        return boto3.client(
            "s3", endpoint_url=self.endpoint, region_name=REGION,
            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )

    def keys(self, prefix: str = "") -> list[str]:
        """Every object key under `prefix`, sorted."""
        pages = self.client().get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=prefix)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))

    def read(self, key: str) -> bytes:
        return self.client().get_object(Bucket=self.bucket, Key=key)["Body"].read()

    def create_bucket(self) -> None:
        self.client().create_bucket(Bucket=self.bucket)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def server_command(port: int) -> list[str]:
    return [sys.executable, "-m", "moto.server", "--host", HOST, "--port", str(port)]


def wait_until_answering(endpoint: str, process: subprocess.Popen[bytes], log: Any) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"the object store exited ({process.returncode}): "
                               f"{log.read().decode(errors='replace')[-2000:]}")
        try:
            requests.get(endpoint, timeout=5)
            return
        except requests.RequestException:  # not listening yet, or still loading
            time.sleep(0.1)
    raise RuntimeError(f"the object store did not answer on {endpoint} in {START_SECONDS}s")


@contextlib.contextmanager
def running_object_store(bucket: str = DEFAULT_BUCKET, port: int = 0) -> Iterator[ObjectStore]:
    """An S3 server on loopback (`port` 0: a free one) with `bucket` made; stopped on exit.
    It keeps everything in memory: state lives as long as the server."""
    port = port or free_port()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(server_command(port), stdout=log, stderr=log,
                                   env={**os.environ, **CREDENTIALS})
        try:
            store = ObjectStore(endpoint=f"http://{HOST}:{port}", bucket=bucket)
            wait_until_answering(store.endpoint, process, log)
            store.create_bucket()
            yield store
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--bucket", default=DEFAULT_BUCKET)
    args = parser.parse_args(argv)
    # SIGTERM too stops the server it started (sys.exit unwinds the context manager)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with running_object_store(args.bucket, args.port) as store:
        print(f"pulumi login '{store.backend_url()}'")
        for name, value in store.env().items():
            print(f"export {name}={value}")
        print("(Ctrl-C stops the server; its state is in memory only)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
