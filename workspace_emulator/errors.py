"""Errors of the workspace domain, independent of HTTP.

Each carries the service's error code (docs/api.md#errors); the HTTP layer decides the
status and the body shape (REST, SCIM) for its surface.
"""

from __future__ import annotations


class ServiceError(Exception):
    code = "INTERNAL_ERROR"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidParameter(ServiceError):
    code = "INVALID_PARAMETER_VALUE"


class MalformedRequest(ServiceError):
    code = "MALFORMED_REQUEST"


class AlreadyExists(ServiceError):
    code = "RESOURCE_ALREADY_EXISTS"


class InvalidState(ServiceError):
    code = "INVALID_STATE"


class NotFound(ServiceError):
    code = "RESOURCE_DOES_NOT_EXIST"


class Unauthenticated(ServiceError):
    code = "UNAUTHENTICATED"


class PermissionDenied(ServiceError):
    code = "PERMISSION_DENIED"


class ResourceConflict(ServiceError):
    code = "RESOURCE_CONFLICT"


class QuotaExceeded(ServiceError):
    code = "QUOTA_EXCEEDED"


class FileAlreadyExists(ServiceError):
    """A Files API path taken: a file uploaded without `overwrite`, or a file where a
    directory is asked for (or the reverse)."""

    code = "ALREADY_EXISTS"


class EntityTooLarge(ServiceError):
    code = "REQUEST_ENTITY_TOO_LARGE"


class DirectoryNotEmpty(ServiceError):
    """A workspace folder deleted without `recursive` while it holds anything."""

    code = "DIRECTORY_NOT_EMPTY"


class MaxNotebookSizeExceeded(ServiceError):
    """Workspace import or export content over the service's 10 MB."""

    code = "MAX_NOTEBOOK_SIZE_EXCEEDED"


class MaxBlockSizeExceeded(ServiceError):
    """A DBFS put's inline contents or add-block's data over the service's 1 MB."""

    code = "MAX_BLOCK_SIZE_EXCEEDED"


class MaxReadSizeExceeded(ServiceError):
    """A DBFS read of more than the service's 1 MB."""

    code = "MAX_READ_SIZE_EXCEEDED"


class DbfsIoError(ServiceError):
    """A DBFS directory deleted without `recursive` while it holds anything."""

    code = "IO_ERROR"


class RequestLimitExceeded(ServiceError):
    code = "REQUEST_LIMIT_EXCEEDED"

    def __init__(self, message: str, retry_after_seconds: int) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds


STATUS_BY_CODE = {
    "INVALID_PARAMETER_VALUE": 400,
    "MALFORMED_REQUEST": 400,
    "RESOURCE_ALREADY_EXISTS": 400,
    "INVALID_STATE": 400,
    "QUOTA_EXCEEDED": 400,
    "DIRECTORY_NOT_EMPTY": 400,
    "MAX_NOTEBOOK_SIZE_EXCEEDED": 400,
    "MAX_BLOCK_SIZE_EXCEEDED": 400,
    "MAX_READ_SIZE_EXCEEDED": 400,
    "IO_ERROR": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "RESOURCE_DOES_NOT_EXIST": 404,
    "RESOURCE_CONFLICT": 409,
    "ALREADY_EXISTS": 409,
    "ENDPOINT_NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "REQUEST_ENTITY_TOO_LARGE": 413,
    "REQUEST_LIMIT_EXCEEDED": 429,
    "INTERNAL_ERROR": 500,
    "TEMPORARILY_UNAVAILABLE": 503,
}
