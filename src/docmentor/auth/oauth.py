"""OAuth 2.0 access tokens (JWTs) from one configured issuer, checked as a protected resource.

- The issuer's signing keys come from its JWKS: ``--oauth-jwks-url``, else the ``jwks_uri``
  of its OpenID configuration (``ISSUER/.well-known/openid-configuration``), else
  ``ISSUER/.well-known/jwks.json``. PyJWT's :class:`jwt.PyJWKClient` fetches and caches them
  (5 minutes) and fetches again for a key id it does not know (key rotation; at most once
  per ``cooldown`` seconds, so made-up key ids cannot flood the issuer).
- A token is accepted only when it is signed with RS256 or ES256 by the key its ``kid``
  names (the key's algorithm, never the token's say: no ``none``, no HS256 with a public
  key), and its ``iss``, ``aud``, ``exp`` (required) and ``nbf`` check out (30 s leeway).
- Its scopes are the ``scope`` claim (space-separated) or ``scp`` (a list or a string):
  ``read`` and ``write`` as for stored tokens.
- Configuration errors stop ``serve`` (:meth:`OAuthVerifier.start`): an issuer or JWKS URL
  that is not http(s) (http only on loopback), an OpenID configuration naming another
  issuer, a key set without RS256/ES256 keys. An issuer that cannot be reached at start-up
  does not: ``serve`` starts, warns, and refuses its tokens (``unavailable``) until its
  keys can be fetched.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import jwt

from docmentor.auth.principal import Principal, TokenRejected, granted
from docmentor.errors import UsageError

__all__ = ["ALGORITHMS", "OAuthConfig", "OAuthVerifier"]

log = logging.getLogger(__name__)

ALGORITHMS = ("RS256", "ES256")
LEEWAY_SECONDS = 30
FETCH_TIMEOUT = 5.0
# a failed discovery is tried again at most this often
RETRY_SECONDS = 10.0


def _check_url(url: str, what: str, option: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{option} {url!r} is not an http(s) URL", hint=f"pass the {what} as https://HOST/…")
    if parts.scheme == "http":
        try:
            loopback = ipaddress.ip_address(parts.hostname).is_loopback
        except ValueError:
            loopback = parts.hostname == "localhost"
        if not loopback:
            raise UsageError(
                f"{option} {url!r}: tokens and keys must come over https",
                hint=f"pass the {what} as https://… (plain http only on 127.0.0.1 or localhost)",
            )
    return url


@dataclass(frozen=True)
class OAuthConfig:
    """``serve --oauth-issuer``: the issuer whose tokens are accepted, the audience they must
    carry, where its keys are (default: discovered), and the URL clients reach ``/mcp`` at
    (the protected resource of RFC 9728; default: the URL a request came to)."""

    issuer: str
    audience: str
    jwks_url: str | None = None
    resource: str | None = None

    def checked(self) -> OAuthConfig:
        """This configuration, or a :class:`UsageError` naming what is wrong."""
        _check_url(self.issuer, "issuer URL", "--oauth-issuer")
        if not self.audience.strip():
            raise UsageError("--oauth-audience is empty", hint="pass the audience your issuer puts in tokens")
        if self.jwks_url is not None:
            _check_url(self.jwks_url, "JWKS URL", "--oauth-jwks-url")
        if self.resource is not None:
            parts = urlsplit(self.resource)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise UsageError(
                    f"--oauth-resource {self.resource!r} is not an http(s) URL",
                    hint="pass the URL clients use, e.g. https://docs.example.com/mcp",
                )
        return self


class OAuthVerifier:
    """Checks JWT access tokens from :class:`OAuthConfig`'s issuer (thread-safe)."""

    def __init__(
        self,
        config: OAuthConfig,
        *,
        cooldown: float = 30.0,
        timeout: float = FETCH_TIMEOUT,
        retry: float = RETRY_SECONDS,
    ) -> None:
        self.config = config.checked()
        self._cooldown = cooldown
        self._timeout = timeout
        self._retry = retry
        self._client: jwt.PyJWKClient | None = None
        self._lock = threading.Lock()
        self._failed_at = 0.0
        self.problem: str | None = None  # why the keys cannot be fetched now

    # -- the keys ------------------------------------------------------------------------
    def _discover(self) -> str:
        """The JWKS URL: configured, from the OpenID configuration, or the well-known path."""
        if self.config.jwks_url:
            return self.config.jwks_url
        issuer = self.config.issuer.rstrip("/")
        url = f"{issuer}/.well-known/openid-configuration"
        try:
            response = httpx.get(url, timeout=self._timeout, follow_redirects=False)
        except httpx.HTTPError as exc:
            raise ConnectionError(f"cannot reach {url}: {exc}") from None
        if response.status_code == 404:
            return f"{issuer}/.well-known/jwks.json"
        if response.status_code != 200:
            raise ConnectionError(f"{url} answered HTTP {response.status_code}")
        try:
            document = response.json()
        except ValueError:
            raise UsageError(
                f"{url} is not an OpenID configuration (not JSON)", hint="check --oauth-issuer"
            ) from None
        if not isinstance(document, dict) or not isinstance(document.get("jwks_uri"), str):
            raise UsageError(f"{url} names no jwks_uri", hint="pass --oauth-jwks-url")
        named = str(document.get("issuer", "")).rstrip("/")
        if named != issuer:
            raise UsageError(
                f"{url} is the configuration of issuer {document.get('issuer')!r}, not {self.config.issuer!r}",
                hint="pass --oauth-issuer exactly as the issuer writes it in its tokens (iss)",
            )
        return _check_url(str(document["jwks_uri"]), "JWKS URL", "the discovered jwks_uri")

    def _keys(self) -> jwt.PyJWKClient:
        """The key client, made (discovery, first fetch) on first use; ConnectionError while
        the issuer cannot be reached (tried again at most every :data:`RETRY_SECONDS`)."""
        with self._lock:
            if self._client is not None:
                return self._client
            if self._failed_at and time.monotonic() - self._failed_at < self._retry:
                raise ConnectionError(self.problem or "the issuer cannot be reached")
            try:
                client = jwt.PyJWKClient(
                    self._discover(), timeout=self._timeout, cooldown_duration=self._cooldown
                )
                keys = client.get_signing_keys()
            except (ConnectionError, jwt.PyJWKClientConnectionError) as exc:
                self._failed_at = time.monotonic()
                self.problem = str(exc)
                raise ConnectionError(self.problem) from None
            except jwt.PyJWKClientError as exc:
                raise UsageError(
                    f"the issuer's key set is unusable: {exc}", hint="check --oauth-jwks-url"
                ) from None
            except jwt.PyJWKSetError as exc:
                raise UsageError(
                    f"the issuer's key set is unusable: {exc}", hint="check --oauth-jwks-url"
                ) from None
            if not any(k.algorithm_name in ALGORITHMS for k in keys):
                raise UsageError(
                    "the issuer's key set has no RS256 or ES256 signing key",
                    hint="docmentor accepts tokens signed with RS256 or ES256 only",
                )
            self._client, self.problem, self._failed_at = client, None, 0.0
            return client

    def start(self) -> str | None:
        """Fetch the keys now: a :class:`UsageError` for a configuration that cannot work,
        a warning (returned) when the issuer cannot be reached now, None when ready."""
        try:
            self._keys()
        except ConnectionError as exc:
            return (
                f"cannot fetch the signing keys of {self.config.issuer} now ({exc}): its tokens are "
                f"refused until they can be fetched (tried again every {self._retry:g} s or so)"
            )
        return None

    # -- one token -----------------------------------------------------------------------
    def verify(self, token: str) -> Principal:
        """The caller ``token`` names, or :class:`TokenRejected` saying why not."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise TokenRejected("the token is malformed (not a JWT)") from None
        if header.get("alg") not in ALGORITHMS:
            raise TokenRejected(f"the token's algorithm {header.get('alg')!r} is not accepted (RS256, ES256)")
        try:
            key = self._keys().get_signing_key(str(header.get("kid") or ""))
        except ConnectionError as exc:
            raise TokenRejected(
                f"the issuer's signing keys cannot be fetched now ({exc})", reason="unavailable"
            ) from None
        except jwt.PyJWKClientConnectionError as exc:
            raise TokenRejected(
                f"the issuer's signing keys cannot be fetched now ({exc})", reason="unavailable"
            ) from None
        except jwt.PyJWKClientError:
            raise TokenRejected("the token is signed with a key the issuer does not publish") from None
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=list(ALGORITHMS),
                audience=self.config.audience,
                issuer=self.config.issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError:
            raise TokenRejected("the token has expired", reason="expired") from None
        except jwt.InvalidAudienceError:
            raise TokenRejected(
                f"the token is not for this server (audience is not {self.config.audience!r})"
            ) from None
        except jwt.InvalidIssuerError:
            raise TokenRejected(f"the token is not from {self.config.issuer}") from None
        except jwt.ImmatureSignatureError:
            raise TokenRejected("the token is not valid yet (nbf)") from None
        except jwt.InvalidSignatureError:
            raise TokenRejected("the token's signature does not verify") from None
        except jwt.MissingRequiredClaimError as exc:
            raise TokenRejected(f"the token lacks the {exc.claim!r} claim") from None
        except jwt.PyJWTError as exc:
            raise TokenRejected(f"the token is not valid ({exc})") from None
        return Principal(
            name=str(claims.get("sub") or claims.get("azp") or claims.get("client_id") or "oauth"),
            scopes=granted(_scope_names(claims)),
            kind="oauth",
            expires_at=int(claims["exp"]),
        )


def _scope_names(claims: dict[str, Any]) -> list[str]:
    """``scope`` (space-separated, RFC 8693/9068) or ``scp`` (a list, or a string)."""
    value = claims.get("scope", claims.get("scp"))
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(v) for v in value]
    return []
