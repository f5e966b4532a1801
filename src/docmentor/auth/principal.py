"""Who a request comes from once its bearer token is checked, and why a token is refused.

Shared by the stored tokens (:mod:`docmentor.auth.tokens`), OAuth access tokens
(:mod:`docmentor.auth.oauth`) and the check that picks between them
(:mod:`docmentor.auth.guard`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from docmentor.errors import DocmentorError

Scope = Literal["read", "write"]
TOKEN_SCOPES: tuple[Scope, ...] = ("read", "write")
#: what each scope grants: write includes read
GRANTS: dict[str, frozenset[str]] = {"read": frozenset({"read"}), "write": frozenset({"read", "write"})}
Rejection = Literal["invalid_token", "expired", "unavailable"]


@dataclass(frozen=True)
class Principal:
    """The caller a valid token names: ``name`` (a stored token's name, the JWT's subject,
    or ``token-file``), the scopes it holds (``write`` includes ``read``), where the token
    came from and when it expires (Unix seconds; None: never)."""

    name: str
    scopes: frozenset[str]
    kind: Literal["stored", "file", "oauth"]
    expires_at: int | None = None

    def allows(self, scope: str) -> bool:
        return scope in self.scopes

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scopes": sorted(self.scopes),
            "kind": self.kind,
            "expires_at": self.expires_at,
        }


class TokenRejected(DocmentorError):
    """A bearer token that grants nothing: ``reason`` is ``invalid_token`` (unknown, revoked,
    malformed, wrong issuer, audience or signature), ``expired``, or ``unavailable`` (the
    issuer's signing keys cannot be fetched now: try again later)."""

    def __init__(self, message: str, *, reason: Rejection = "invalid_token", hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.reason: Rejection = reason


def granted(names: list[str] | tuple[str, ...] | frozenset[str]) -> frozenset[str]:
    """The scopes a list of scope names grants (unknown names grant nothing)."""
    out: frozenset[str] = frozenset()
    for name in names:
        out |= GRANTS.get(name, frozenset())
    return out
