"""Access tokens of ``docmentor serve`` over HTTP (the ``access_tokens`` table of migration
``m011_access_tokens``): plain rows, the token's SHA-256 hash only, never the token.

The statements are the portable subset the store writes (``?`` placeholders, no SQLite-only
syntax), so PostgreSQL runs them as they are. :mod:`docmentor.auth.tokens` decides what a
token is and checks one; this module only keeps the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = [
    "TokenRow",
    "any_tokens",
    "delete_token",
    "insert_token",
    "token_by_hash",
    "token_rows",
    "touch_token",
]

_COLUMNS = "name, token_hash, scope, created_at, expires_at, last_used_at"


@dataclass(frozen=True, slots=True)
class TokenRow:
    """One stored token: its name, the hex SHA-256 of the token, its scope and times (ISO 8601, UTC)."""

    name: str
    token_hash: str
    scope: str
    created_at: str
    expires_at: str | None
    last_used_at: str | None


def _row(r: Any) -> TokenRow:
    return TokenRow(
        name=str(r[0]),
        token_hash=str(r[1]),
        scope=str(r[2]),
        created_at=str(r[3]),
        expires_at=None if r[4] is None else str(r[4]),
        last_used_at=None if r[5] is None else str(r[5]),
    )


def insert_token(store: Store, row: TokenRow) -> bool:
    """Store ``row``; False (and nothing written) when a token of that name exists."""
    with store.transaction() as db:
        if db.execute("SELECT 1 FROM access_tokens WHERE name = ?", (row.name,)).fetchone() is not None:
            return False
        db.execute(
            f"INSERT INTO access_tokens ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
            (row.name, row.token_hash, row.scope, row.created_at, row.expires_at, row.last_used_at),
        )
    return True


def token_rows(store: Store) -> list[TokenRow]:
    """Every stored token, oldest first."""
    rows = store.conn().execute(f"SELECT {_COLUMNS} FROM access_tokens ORDER BY created_at, name")
    return [_row(r) for r in rows]


def token_by_hash(store: Store, token_hash: str) -> TokenRow | None:
    """The token whose hash is ``token_hash``, if one is stored."""
    r = (
        store.conn()
        .execute(f"SELECT {_COLUMNS} FROM access_tokens WHERE token_hash = ?", (token_hash,))
        .fetchone()
    )
    return None if r is None else _row(r)


def any_tokens(store: Store) -> bool:
    """Whether any token is stored."""
    return store.conn().execute("SELECT 1 FROM access_tokens LIMIT 1").fetchone() is not None


def delete_token(store: Store, name: str) -> TokenRow | None:
    """Remove the token named ``name``; the row removed, or None when there was none."""
    with store.transaction() as db:
        r = db.execute(f"SELECT {_COLUMNS} FROM access_tokens WHERE name = ?", (name,)).fetchone()
        if r is None:
            return None
        db.execute("DELETE FROM access_tokens WHERE name = ?", (name,))
    return _row(r)


def touch_token(store: Store, token_hash: str, at: str) -> None:
    """Record that the token was used at ``at``."""
    with store.transaction() as db:
        db.execute("UPDATE access_tokens SET last_used_at = ? WHERE token_hash = ?", (at, token_hash))
