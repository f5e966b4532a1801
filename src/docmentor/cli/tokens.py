"""`docmentor token`: create, list and revoke the bearer tokens `serve --transport http` accepts."""

from __future__ import annotations

import sys
from typing import Annotated

import click
import typer

from docmentor.cli.app import app, emit, index_exists, open_engine, require_index

token_app = typer.Typer(
    help="Bearer tokens for `docmentor serve --transport http`, kept (hashed) in the index. "
    "Once the index holds one, every HTTP request needs a token.",
    short_help="Bearer tokens for serving over HTTP.",
    no_args_is_help=True,
)
app.add_typer(token_app, name="token")

# spelled here so `docmentor --help` imports no library code (docmentor.TOKEN_SCOPES)
SCOPE_CHOICES = ("read", "write")


@token_app.command("create", short_help="Create a token (printed once).")
def token_create(
    scope: Annotated[
        str,
        typer.Option(
            "--scope",
            help="read: the read-only tools (search, get, …); write: every tool (refresh, report, generate).",
            click_type=click.Choice(SCOPE_CHOICES),
        ),
    ],
    name: Annotated[
        str | None, typer.Option("--name", help="A name to list and revoke it by (default token-N).")
    ] = None,
    expires_days: Annotated[
        int | None,
        typer.Option(
            "--expires-days", help="Valid for this many days (default: until revoked).", min=1, max=3650
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (with the token).")] = False,
) -> None:
    """Create a token and print it once: the index keeps only its SHA-256 hash.

    Clients send it as `Authorization: Bearer TOKEN`.
    """
    from docmentor import create_token

    engine = open_engine(create=True)
    created = create_token(engine, scope=scope, name=name, expires_days=expires_days)
    engine.close()
    if as_json:
        emit(created.to_dict())
        return
    info = created.info
    until = f", expires {info.expires_at}" if info.expires_at else ""
    print(created.token)
    print(
        f"token {info.name!r} ({info.scope} scope{until}); it is shown only now: keep it in a secret store",
        file=sys.stderr,
    )


@token_app.command("list", short_help="The tokens: names, scopes, times (never a token).")
def token_list(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the stored tokens: name, scope, created, expires, last used."""
    from docmentor import list_tokens

    rows = []
    if index_exists():
        engine = open_engine(create=True)  # an index from before tokens gets their table
        rows = list_tokens(engine)
        engine.close()
    if as_json:
        emit({"tokens": [t.to_dict() for t in rows]})
        return
    if not rows:
        print(
            "no tokens: HTTP serving needs none on 127.0.0.1 (create one with `docmentor token create --scope read`)"
        )
    for t in rows:
        expires = t.expires_at or "never"
        if t.expired():
            expires += " (expired)"
        print(
            f"{t.name}\t{t.scope}\tcreated {t.created_at}\texpires {expires}\tlast used {t.last_used_at or 'never'}"
        )


@token_app.command("revoke", short_help="Revoke a token by name.")
def token_revoke(
    name: Annotated[str, typer.Argument(help="The token's name (see `docmentor token list`).")],
) -> None:
    """Revoke a token: requests carrying it are refused from now on (running servers included)."""
    from docmentor import has_tokens, revoke_token

    require_index("there are no tokens: create one with `docmentor token create --scope read`")
    engine = open_engine(create=True)
    try:
        info = revoke_token(engine, name)
        left = has_tokens(engine)
    finally:
        engine.close()
    print(f"revoked {info.name}")
    if not left:
        print(
            "warning: no tokens left: a server running with tokens refuses every request until one is "
            "created; a server started now without --token-file serves localhost without one",
            file=sys.stderr,
        )
