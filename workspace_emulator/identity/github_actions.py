"""A stand-in of GitHub Actions' OIDC token request, for the secretless sign-ins
(`github-oidc`, `github-oidc-azure`) outside of GitHub.

`GET /github-actions/idtoken?api-version=2.0&audience=A[&subject=S]` with
`Authorization: bearer <github_oidc_request_token of the info line>` answers
`{"value": <ID token>}` as GitHub does; a job reads the URL and the token from
ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN and appends
`&audience=...`. The token's subject is `subject` (the caller says which job it plays;
default DEFAULT_SUBJECT), its issuer GitHub's, signed by the emulator (id_tokens.py).
"""

from __future__ import annotations

import hmac
import re

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from workspace_emulator.identity.id_tokens import IdTokenSigner

REQUEST_PATH = "/github-actions/idtoken"
DEFAULT_SUBJECT = "repo:acme/infra:environment:preview-dev"
_SUBJECT = re.compile(r"^repo:(?P<repository>[^/:]+/[^:]+):(?P<kind>[a-z_]+):(?P<value>.+)$")


def _job_claims(subject: str) -> dict[str, str]:
    """The claims GitHub adds next to `sub`, as far as the subject tells them."""
    match = _SUBJECT.match(subject)
    if match is None:
        return {}
    repository = match.group("repository")
    claims = {"repository": repository, "repository_owner": repository.split("/")[0]}
    if match.group("kind") == "environment":
        claims["environment"] = match.group("value")
    elif match.group("kind") == "ref":
        claims["ref"] = match.group("value")
    return claims


def github_actions_routes(signer: IdTokenSigner, request_token: str) -> list[Route]:
    async def id_token(request: Request) -> JSONResponse:
        scheme, _, presented = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(presented.strip(),
                                                                 request_token):
            return JSONResponse(
                {"message": "Bad credentials: send 'Authorization: bearer "
                            "<github_oidc_request_token of the emulator's start-up line>'."},
                status_code=401)
        subject = request.query_params.get("subject") or DEFAULT_SUBJECT
        audience = request.query_params.get("audience") or \
            f"https://github.com/{_job_claims(subject).get('repository_owner', 'acme')}"
        return JSONResponse({"value": signer.mint(subject, audience, _job_claims(subject))},
                            headers={"Cache-Control": "no-store"})

    return [Route(REQUEST_PATH, id_token, methods=["GET"])]
