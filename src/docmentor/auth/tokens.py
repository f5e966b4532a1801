"""Bearer tokens kept in the index: create one (shown once), list them, revoke one, check one.

A token is ``dmt_`` followed by 43 URL-safe characters (``secrets.token_urlsafe(32)``:
256 random bits), so it is recognisable in a leaked file or log and cannot be guessed. The
index keeps only its SHA-256 (a fast hash is right for random secrets: there is no
dictionary to try), and a presented token is compared with the stored hash in constant
time. A token has a scope (``read``: the read-only tools; ``write``: every tool) and may
expire. Revoking deletes it: the next request carrying it is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from docmentor.auth.principal import GRANTS, TOKEN_SCOPES, Principal, TokenRejected
from docmentor.errors import NotFoundError, UsageError
from docmentor.store.tokens import (
    TokenRow,
    any_tokens,
    delete_token,
    insert_token,
    token_by_hash,
    token_rows,
    touch_token,
)

if TYPE_CHECKING:
    from docmentor.engine import Docmentor

__all__ = [
    "TOKEN_PREFIX",
    "CreatedToken",
    "TokenInfo",
    "create_token",
    "has_tokens",
    "list_tokens",
    "record_token_use",
    "revoke_token",
    "verify_token",
]

TOKEN_PREFIX = "dmt_"
MAX_EXPIRES_DAYS = 3650
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# a token's last use is written at most this often (a write per request would queue every
# request behind the index's writer)
USE_RECORD_SECONDS = 60


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenInfo:
    """A stored token as listed: never the token itself."""

    name: str
    scope: str
    created_at: str
    expires_at: str | None
    last_used_at: str | None

    def expired(self, now: datetime | None = None) -> bool:
        return self.expires_at is not None and _parse(self.expires_at) <= (now or datetime.now(UTC))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "last_used_at": self.last_used_at,
            "expired": self.expired(),
        }

    @classmethod
    def of(cls, row: TokenRow) -> TokenInfo:
        return cls(row.name, row.scope, row.created_at, row.expires_at, row.last_used_at)


@dataclass(frozen=True)
class CreatedToken:
    """A new token: ``token`` is shown this once (the index keeps only its hash)."""

    token: str
    info: TokenInfo

    def to_dict(self) -> dict[str, Any]:
        return {"token": self.token, **self.info.to_dict()}


def _check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise UsageError(
            f"{name!r} is not a token name",
            hint="use letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit)",
            arguments=("name",),
        )
    return name


def create_token(
    engine: Docmentor,
    *,
    scope: str,
    name: str | None = None,
    expires_days: int | None = None,
    now: datetime | None = None,
) -> CreatedToken:
    """Make a token of ``scope`` (``read`` or ``write``) named ``name`` (default ``token-N``),
    valid for ``expires_days`` days (default: until revoked) from ``now`` (default: now),
    and store its hash in the index."""
    if scope not in TOKEN_SCOPES:
        raise UsageError(f"unknown scope {scope!r}", hint="choose read or write", arguments=("scope",))
    if expires_days is not None and not 1 <= expires_days <= MAX_EXPIRES_DAYS:
        raise UsageError(
            f"expires_days must be 1 to {MAX_EXPIRES_DAYS}, got {expires_days}",
            hint="leave it out for a token that lasts until revoked",
            arguments=("expires_days",),
        )
    created = now or datetime.now(UTC)
    expires = None if expires_days is None else _iso(created + timedelta(days=expires_days))
    store = engine.store
    taken = {row.name for row in token_rows(store)}
    if name is None:
        name = next(f"token-{n}" for n in range(1, len(taken) + 2) if f"token-{n}" not in taken)
    _check_name(name)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = TokenRow(name, _hash(token), scope, _iso(created), expires, None)
    if not insert_token(store, row):
        raise UsageError(
            f"a token named {name!r} exists",
            hint=f"pick another name, or revoke it first: docmentor token revoke {name}",
            arguments=("name",),
        )
    return CreatedToken(token, TokenInfo.of(row))


def list_tokens(engine: Docmentor) -> list[TokenInfo]:
    """The stored tokens, oldest first (names, scopes and times; never a token)."""
    return [TokenInfo.of(row) for row in token_rows(engine.store)]


def revoke_token(engine: Docmentor, name: str) -> TokenInfo:
    """Delete the token named ``name``: requests carrying it are refused from now on."""
    row = delete_token(engine.store, name)
    if row is None:
        known = ", ".join(t.name for t in list_tokens(engine)) or "none"
        raise NotFoundError(f"no token named {name!r}", hint=f"stored tokens: {known} (docmentor token list)")
    return TokenInfo.of(row)


def has_tokens(engine: Docmentor) -> bool:
    """Whether the index holds any token (then ``serve`` over HTTP requires one)."""
    return any_tokens(engine.store)


def verify_token(engine: Docmentor, token: str, *, now: datetime | None = None) -> Principal:
    """The caller ``token`` names, or :class:`TokenRejected` (unknown, revoked or expired)."""
    digest = _hash(token)
    row = token_by_hash(engine.store, digest)
    # the lookup is by hash (nothing about the token leaks through its timing); compare
    # again in constant time so the decision never rests on the database's equality
    if row is None or not hmac.compare_digest(row.token_hash, digest):
        raise TokenRejected("the token is not valid (unknown or revoked)")
    info = TokenInfo.of(row)
    moment = now or datetime.now(UTC)
    if info.expired(moment):
        raise TokenRejected(f"the token {row.name!r} expired at {row.expires_at}", reason="expired")
    expires = None if row.expires_at is None else int(_parse(row.expires_at).timestamp())
    return Principal(name=row.name, scopes=GRANTS[row.scope], kind="stored", expires_at=expires)


def record_token_use(engine: Docmentor, token: str, *, now: datetime | None = None) -> bool:
    """Note that ``token`` was used now, unless its last use was noted less than
    :data:`USE_RECORD_SECONDS` ago; whether it was written."""
    digest = _hash(token)
    row = token_by_hash(engine.store, digest)
    moment = now or datetime.now(UTC)
    if row is None:
        return False
    if (
        row.last_used_at is not None
        and (moment - _parse(row.last_used_at)).total_seconds() < USE_RECORD_SECONDS
    ):
        return False
    touch_token(engine.store, digest, _iso(moment))
    return True
