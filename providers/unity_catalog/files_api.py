"""The Files API (`/api/2.0/fs/files{path}`, `/api/2.0/fs/directories{path}`): files in Unity
Catalog volumes, their bytes sent and read raw (not JSON), in chunks, never whole."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

import requests

if TYPE_CHECKING:
    from providers.client.workspace import Content

FILES_PATH = "/api/2.0/fs/files"
DIRECTORIES_PATH = "/api/2.0/fs/directories"
CHUNK_BYTES = 1024 * 1024


class Transfers(Protocol):
    """What the area needs of a client: the raw-bytes call (`WorkspaceClient.transfer`)."""

    def transfer(self, method: str, path: str, *, params: dict[str, Any] | None = None,
                 content: Content | None = None, stream: bool = False) -> requests.Response: ...


class FilesApi:
    def __init__(self, client: Transfers) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"FilesApi({self.client!r})"

    def upload(self, path: str, open_content: Content, *, overwrite: bool) -> None:
        """Uploads the bytes `open_content()` opens (called again for each time the call is
        sent) to the file at `path`; `overwrite=False` refuses a file already there
        (ALREADY_EXISTS)."""
        self.client.transfer("PUT", _files(path), content=open_content,
                             params={"overwrite": "true" if overwrite else "false"})

    def metadata(self, path: str) -> dict[str, Any]:
        """`size` (bytes) and `last_modified` (epoch ms) of the file at `path`, from the
        headers of HEAD (the service gives no digest of the content); NotFound where none."""
        headers = self.client.transfer("HEAD", _files(path)).headers
        modified = headers.get("last-modified")
        return {
            "size": int(headers.get("content-length") or 0),
            "last_modified": (int(parsedate_to_datetime(modified).timestamp() * 1000)
                              if modified else None),
        }

    def download(self, path: str) -> AbstractContextManager[Iterator[bytes]]:
        """The file's bytes, read in chunks as they arrive (the answer closed after)."""
        return _Chunks(self.client.transfer("GET", _files(path), stream=True))

    def delete(self, path: str) -> None:
        self.client.transfer("DELETE", _files(path))

    def list_directory(self, path: str) -> Iterator[dict[str, Any]]:
        """The entries of the directory at `path` (`path`, `name`, `is_directory`,
        `file_size`, `last_modified`), page by page; NotFound where there is none."""
        token: str | None = None
        while True:
            params = {"page_token": token} if token else None
            answer = self.client.transfer("GET", f"{DIRECTORIES_PATH}{quote(path)}",
                                          params=params).json()
            yield from answer.get("contents") or []
            token = answer.get("next_page_token")
            if not token:
                return

    def make_directories(self, path: str) -> None:
        """The directory at `path` and those above it, as `mkdir -p` (nothing where there)."""
        self.client.transfer("PUT", f"{DIRECTORIES_PATH}{quote(path)}")


def _files(path: str) -> str:
    return f"{FILES_PATH}{quote(path)}"


class _Chunks(AbstractContextManager[Iterator[bytes]]):
    def __init__(self, response: requests.Response) -> None:
        self.response = response

    def __enter__(self) -> Iterator[bytes]:
        return self.response.iter_content(CHUNK_BYTES)

    def __exit__(self, *exc_info: object) -> None:
        self.response.close()

