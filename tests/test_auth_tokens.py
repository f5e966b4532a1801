"""Bearer tokens kept in the index (docmentor.create_token / list / revoke / verify and
`docmentor token …`): shown once, stored as a SHA-256 hash only, scoped, expiring, revocable."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import docmentor
from clitool import Cli
from docmentor import (
    TOKEN_PREFIX,
    Docmentor,
    NotFoundError,
    TokenRejected,
    UsageError,
    create_token,
    has_tokens,
    index_ready,
    list_tokens,
    record_token_use,
    revoke_token,
    verify_token,
)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Docmentor]:
    eng = Docmentor(tmp_path / "index", embeddings=False)
    yield eng
    eng.close()


def test_a_token_is_shown_once_and_only_its_hash_is_stored(engine: Docmentor, tmp_path: Path) -> None:
    assert not has_tokens(engine)
    made = create_token(engine, scope="read", name="ci")
    assert made.token.startswith(TOKEN_PREFIX) and len(made.token) == len(TOKEN_PREFIX) + 43
    assert made.info.name == "ci" and made.info.scope == "read" and made.info.expires_at is None
    assert has_tokens(engine)
    engine.close()
    stored = b"".join(p.read_bytes() for p in (tmp_path / "index").glob("*.sqlite*"))
    assert stored, list((tmp_path / "index").iterdir())
    assert made.token.encode() not in stored  # never the token …
    assert hashlib.sha256(made.token.encode()).hexdigest().encode() in stored  # … its hash
    engine = Docmentor(tmp_path / "index", embeddings=False)  # closed above: opened again
    (listed,) = list_tokens(engine)
    assert listed == made.info
    assert "token" not in listed.to_dict() and made.token not in json.dumps(listed.to_dict())
    who = verify_token(engine, made.token)
    assert (who.name, who.scopes, who.kind) == ("ci", frozenset({"read"}), "stored")
    writer = create_token(engine, scope="write")  # default names: token-1, token-2, …
    assert writer.info.name == "token-1"
    assert verify_token(engine, writer.token).scopes == frozenset({"read", "write"})
    assert create_token(engine, scope="read").info.name == "token-2"
    assert made.token != writer.token
    engine.close()


def test_unknown_revoked_and_expired_tokens_are_refused(engine: Docmentor) -> None:
    made = create_token(engine, scope="write", name="deploy")
    for wrong in (made.token[:-1], made.token + "x", TOKEN_PREFIX + "x" * 43, ""):
        with pytest.raises(TokenRejected) as refused:
            verify_token(engine, wrong)
        assert refused.value.reason == "invalid_token"
    assert revoke_token(engine, "deploy").name == "deploy"
    with pytest.raises(TokenRejected, match="unknown or revoked"):
        verify_token(engine, made.token)
    with pytest.raises(NotFoundError, match="no token named 'deploy'"):
        revoke_token(engine, "deploy")
    old = create_token(
        engine, scope="read", name="old", expires_days=1, now=datetime.now(UTC) - timedelta(days=2)
    )
    with pytest.raises(TokenRejected) as refused:
        verify_token(engine, old.token)
    assert refused.value.reason == "expired" and "expired at" in refused.value.message
    assert list_tokens(engine)[0].expired()
    fresh = create_token(engine, scope="read", name="fresh", expires_days=1)
    assert verify_token(engine, fresh.token).expires_at is not None


def test_bad_arguments_are_usage_errors(engine: Docmentor) -> None:
    create_token(engine, scope="read", name="a")
    for kwargs, message in (
        ({"scope": "admin"}, "unknown scope 'admin'"),
        ({"scope": "read", "name": "a"}, "a token named 'a' exists"),
        ({"scope": "read", "name": "has space"}, "'has space' is not a token name"),
        ({"scope": "read", "name": ""}, "'' is not a token name"),
        ({"scope": "read", "expires_days": 0}, "expires_days must be 1 to 3650"),
    ):
        with pytest.raises(UsageError, match=message):
            create_token(engine, **kwargs)
    assert [t.name for t in list_tokens(engine)] == ["a"]  # nothing else was stored


def test_a_tokens_use_is_recorded_at_most_once_a_minute(engine: Docmentor) -> None:
    made = create_token(engine, scope="read", name="r")
    start = datetime(2030, 1, 1, tzinfo=UTC)
    assert record_token_use(engine, made.token, now=start)
    assert not record_token_use(engine, made.token, now=start + timedelta(seconds=30))
    assert record_token_use(engine, made.token, now=start + timedelta(seconds=61))
    assert list_tokens(engine)[0].last_used_at == "2030-01-01T00:01:01Z"
    assert not record_token_use(engine, "dmt_unknown", now=start)


def test_the_token_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli = Cli(tmp_path / "index", capsys)
    assert cli.json("token", "list") == {"tokens": []}  # no index: nothing, and none made
    assert not (tmp_path / "index").exists()
    rc, out, err = cli("token", "create", "--scope", "read", "--name", "agent")
    assert rc == 0 and out.startswith(TOKEN_PREFIX) and out.count("\n") == 1, (out, err)
    assert "shown only now" in err
    token = out.strip()
    made = cli.json("token", "create", "--scope", "write", "--expires-days", "30")
    assert made["name"] == "token-1" and made["scope"] == "write" and made["token"].startswith(TOKEN_PREFIX)
    listed = cli.json("token", "list")["tokens"]
    assert [(t["name"], t["scope"]) for t in listed] == [("agent", "read"), ("token-1", "write")]
    assert token not in json.dumps(listed) and made["token"] not in json.dumps(listed)
    assert set(listed[1]) == {"name", "scope", "created_at", "expires_at", "last_used_at", "expired"}
    table = cli.ok("token", "list")
    assert "agent\tread\tcreated " in table and "expires never" in table and token not in table
    assert cli.misused("token", "create", "--scope", "read", "--name", "agent").startswith(
        "error: a token named 'agent' exists (pick another --name, or revoke it first: docmentor token revoke agent)"
    )
    assert cli.ok("token", "revoke", "agent") == "revoked agent\n"  # token-1 is left: no warning
    assert cli.fails("token", "revoke", "agent").startswith("error: no token named 'agent'")
    rc, _, err = cli("token", "create", "--scope", "admin")
    assert rc == 2 and "'admin' is not one of 'read', 'write'" in err
    rc, _, err = cli("token", "create", "--scope", "read", "--expires-days", "0")
    assert rc == 2 and "--expires-days" in err
    engine = Docmentor(tmp_path / "index", embeddings=False)
    with pytest.raises(TokenRejected):
        verify_token(engine, token)
    assert verify_token(engine, made["token"]).name == "token-1"
    engine.close()
    rc, out, err = cli("token", "revoke", "token-1")  # the last one: what that means for servers
    assert rc == 0 and out == "revoked token-1\n" and err.startswith("warning: no tokens left"), err


def test_the_library_api_is_exported() -> None:
    for name in (
        "create_token",
        "list_tokens",
        "revoke_token",
        "verify_token",
        "Authenticator",
        "OAuthVerifier",
    ):
        assert name in docmentor.__all__


def test_tokens_and_readiness_on_postgresql(postgres_url: str) -> None:
    """The same statements on the PostgreSQL backend (migration m011, store/tokens.py)."""
    engine = Docmentor(postgres_url, embeddings=False)
    assert not has_tokens(engine) and index_ready(engine).ready
    made = create_token(engine, scope="write", name="pg")
    assert verify_token(engine, made.token).scopes == frozenset({"read", "write"})
    assert record_token_use(engine, made.token)
    (listed,) = list_tokens(engine)
    assert listed.name == "pg" and listed.last_used_at is not None
    with pytest.raises(UsageError, match="a token named 'pg' exists"):
        create_token(engine, scope="read", name="pg")
    revoke_token(engine, "pg")
    with pytest.raises(TokenRejected):
        verify_token(engine, made.token)
    assert not has_tokens(engine)
    engine.close()
