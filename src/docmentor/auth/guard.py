"""One bearer token in, one caller out: the check ``serve --transport http`` runs on every request.

A token is tried against, in turn: the ``--token-file`` token (write scope, compared in
constant time), the tokens stored in the index (``dmt_…``), and the OAuth issuer's JWTs.
Authentication is required when any of them is configured — stored tokens counted on each
request, so a token created while the server runs turns it on. Once on, it stays on for
the server's life: revoking the last stored token leaves every request refused until a
token is created again (a server bound beyond localhost because a token existed must never
fall open). A stored token's last use is written by one background thread, never on the
request's path.
"""

from __future__ import annotations

import hmac
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from docmentor.auth.principal import GRANTS, Principal, TokenRejected
from docmentor.auth.tokens import TOKEN_PREFIX, has_tokens, record_token_use, verify_token
from docmentor.errors import DocmentorError, IndexUnavailable

if TYPE_CHECKING:
    from docmentor.auth.oauth import OAuthVerifier  # httpx and jwt: only a server that checks JWTs
    from docmentor.engine import Docmentor

__all__ = ["Authenticator"]

log = logging.getLogger(__name__)
MAX_TOKEN_CHARS = 8192  # a JWT with many claims is a few KB; anything longer is not a token


class Authenticator:
    """Bearer tokens for one server: its token file's, the index's, an OAuth issuer's."""

    def __init__(
        self,
        engine: Docmentor,
        *,
        file_token: str | None = None,
        oauth: OAuthVerifier | None = None,
        required: bool = False,
    ) -> None:
        """``required``: tokens are required from the start (the server found stored ones when
        it checked its bind), whatever a first read of them says."""
        self.engine = engine
        self.oauth = oauth
        self._file_token = file_token.encode("utf-8") if file_token else None
        self._uses = ThreadPoolExecutor(max_workers=1, thread_name_prefix="token-use")
        self._latched = required  # a token was required once: it stays required
        self.required()  # as the server starts: tokens stored now latch it on

    def required(self) -> bool:
        """Whether requests must carry a token: a token file, an issuer, or stored tokens —
        now or at any time since the server started (revoking the last token does not open
        the server). An index that cannot say counts as having tokens (refuse rather than
        open up)."""
        return self.requirement() is not False

    def requirement(self) -> bool | None:
        """:meth:`required`, or None when the index cannot say now (its database cannot be
        reached; any other unreadable index counts as requiring a token):
        a request is then refused as unavailable, not as missing a token nobody has."""
        if self._latched or self._file_token is not None or self.oauth is not None:
            return True
        try:
            self._latched = has_tokens(self.engine)
        except IndexUnavailable as exc:  # the database is away (a restart): unavailable, not open
            log.warning("cannot read the stored tokens (%s): refusing requests", exc)
            return None
        except Exception as exc:  # the index is unreadable: fail closed
            log.warning("cannot read the stored tokens (%s): requiring one", exc)
            return True
        return self._latched

    def verify(self, token: str) -> Principal:
        """The caller ``token`` names, or :class:`TokenRejected` saying why not."""
        if (
            not token
            or len(token) > MAX_TOKEN_CHARS
            or not token.isascii()
            or any(c.isspace() for c in token)
        ):
            raise TokenRejected("the token is malformed (one word of printable ASCII expected)")
        if self._file_token is not None and hmac.compare_digest(token.encode("utf-8"), self._file_token):
            return Principal(name="token-file", scopes=GRANTS["write"], kind="file")
        if token.startswith(TOKEN_PREFIX):
            try:
                principal = verify_token(self.engine, token)
            except IndexUnavailable as exc:  # the database is down: the token may well be good
                log.warning("cannot check a stored token: %s", exc)
                raise TokenRejected(
                    "the index cannot be read now, so the token cannot be checked: try again later",
                    reason="unavailable",
                ) from None
            self._uses.submit(self._record, token)
            return principal
        if self.oauth is not None and token.count(".") == 2:
            return self.oauth.verify(token)
        raise TokenRejected("the token is not valid")

    def _record(self, token: str) -> None:
        try:
            record_token_use(self.engine, token)
        except DocmentorError as exc:
            log.debug("token use not recorded: %s", exc)
        except Exception as exc:  # a busy or read-only index: the use is only bookkeeping
            log.debug("token use not recorded: %s", exc)

    def close(self) -> None:
        self._uses.shutdown(wait=True)
