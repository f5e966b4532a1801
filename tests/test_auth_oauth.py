"""OAuth access tokens (docmentor.OAuthVerifier) from a real issuer on 127.0.0.1: discovery,
signatures by the JWKS key a token names (rotation), iss/aud/exp/nbf, the algorithms allowed,
scopes, and clear errors for a configuration that cannot work."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from docmentor import OAuthConfig, OAuthVerifier, TokenRejected, UsageError
from httpserver import HttpServer, Reply, http_server  # noqa: F401
from issuertool import AUDIENCE, Issuer


def _refused(verifier: OAuthVerifier, token: str) -> TokenRejected:
    with pytest.raises(TokenRejected) as refused:
        verifier.verify(token)
    return refused.value


def test_tokens_from_the_issuer_are_checked(http_server: HttpServer) -> None:  # noqa: F811
    issuer = Issuer(http_server)
    verifier = OAuthVerifier(OAuthConfig(issuer.url, AUDIENCE), cooldown=0)
    assert verifier.start() is None  # discovery: the jwks_uri of its OpenID configuration
    assert http_server.hits("/realms/docs/.well-known/openid-configuration") == 1
    who = verifier.verify(issuer.token())
    assert (who.name, who.scopes, who.kind) == ("alice", frozenset({"read"}), "oauth")
    assert verifier.verify(issuer.token(scope="write")).scopes == frozenset({"read", "write"})
    assert verifier.verify(issuer.token(scope=None, scp=["read", "write"])).allows("write")  # scp, a list
    assert verifier.verify(issuer.token(scope=None, scp="read")).scopes == frozenset({"read"})
    assert verifier.verify(issuer.token(scope="openid email")).scopes == frozenset()  # signed, but no scope
    assert verifier.verify(issuer.token(aud=["other", AUDIENCE])).name == "alice"  # one of several audiences
    # each refusal says why
    now = int(time.time())
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # a key nobody publishes
    cases = {
        "the token has expired": issuer.token(exp=now - 120),
        f"the token is not for this server (audience is not {AUDIENCE!r})": issuer.token(aud="someone-else"),
        f"the token is not from {issuer.url}": issuer.token(iss="https://evil.example/realms/docs"),
        "the token's signature does not verify": issuer.token(key=stranger),  # kid k1, another key
        "the token is not valid yet (nbf)": issuer.token(nbf=now + 600),
        "the token lacks the 'exp' claim": issuer.token(exp=None),
        "the token is signed with a key the issuer does not publish": issuer.token(
            "k9", key=issuer.keys["k1"]
        ),
        "the token is malformed (not a JWT)": "not.a.jwt",
    }
    for message, token in cases.items():
        refused = _refused(verifier, token)
        assert refused.message == message, (message, refused.message)
        assert refused.reason == ("expired" if "expired" in message else "invalid_token")


def test_only_rs256_and_es256_signatures_by_the_named_key_are_accepted(http_server: HttpServer) -> None:  # noqa: F811
    issuer = Issuer(http_server)
    issuer.add_key("ec1", "ec")
    verifier = OAuthVerifier(OAuthConfig(issuer.url, AUDIENCE), cooldown=0)
    assert verifier.verify(issuer.token("ec1")).name == "alice"  # ES256
    public_pem = issuer.keys["k1"].public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    header = {"kid": "k1"}
    forged = {
        # HS256 "signed" with the public key: the classic confusion attack
        "HS256": _hs256(issuer.claims(), public_pem, header),
        "none": jwt.encode(issuer.claims(), "", algorithm="none", headers=header),
        "RS512": jwt.encode(issuer.claims(), issuer.keys["k1"], algorithm="RS512", headers=header),
    }
    for alg, token in forged.items():
        assert "is not accepted (RS256, ES256)" in _refused(verifier, token).message, alg
    # ES256 in the header, the RSA key's kid: the key's algorithm decides, not the token's
    es_with_rsa_kid = jwt.encode(
        issuer.claims(), issuer.keys["ec1"], algorithm="ES256", headers={"kid": "k1"}
    )
    assert _refused(verifier, es_with_rsa_kid).reason == "invalid_token"


def _hs256(claims: dict[str, object], secret: bytes, header: dict[str, str]) -> str:
    """HS256 by hand (PyJWT itself refuses a PEM key as an HMAC secret)."""

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = b64(json.dumps({"alg": "HS256", "typ": "JWT", **header}).encode())
    body = b64(json.dumps(claims).encode())
    sig = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(sig)}"


def test_a_rotated_key_is_fetched_when_a_token_names_it(http_server: HttpServer) -> None:  # noqa: F811
    issuer = Issuer(http_server)
    verifier = OAuthVerifier(OAuthConfig(issuer.url, AUDIENCE), cooldown=0)
    assert verifier.verify(issuer.token()).name == "alice"
    fetched = http_server.hits("/realms/docs/certs")
    issuer.add_key("k2")
    del issuer.keys["k1"]  # rotated: k2 signs now
    assert verifier.verify(issuer.token("k2")).name == "alice"
    assert http_server.hits("/realms/docs/certs") == fetched + 1  # fetched again for the new kid
    assert verifier.verify(issuer.token("k2", sub="bob")).name == "bob"
    assert http_server.hits("/realms/docs/certs") == fetched + 1  # then cached


def test_without_discovery_the_well_known_jwks_is_used(http_server: HttpServer) -> None:  # noqa: F811
    issuer = Issuer(http_server, discovery=False)
    verifier = OAuthVerifier(OAuthConfig(issuer.url, AUDIENCE))
    assert verifier.start() is None
    assert http_server.hits("/realms/docs/.well-known/jwks.json") == 1
    assert verifier.verify(issuer.token()).name == "alice"
    explicit = OAuthVerifier(OAuthConfig(issuer.url, AUDIENCE, jwks_url=issuer.url + "/certs"))
    assert explicit.verify(issuer.token()).name == "alice"


def test_configurations_that_cannot_work_are_usage_errors(http_server: HttpServer) -> None:  # noqa: F811
    for issuer_url, message in (
        (
            "ftp://idp.example/realms/docs",
            "--oauth-issuer 'ftp://idp.example/realms/docs' is not an http(s) URL",
        ),
        ("idp.example", "--oauth-issuer 'idp.example' is not an http(s) URL"),
        ("http://idp.example/realms/docs", "tokens and keys must come over https"),
    ):
        with pytest.raises(UsageError, match=re.escape(message)):
            OAuthVerifier(OAuthConfig(issuer_url, AUDIENCE))
    with pytest.raises(UsageError, match="--oauth-audience is empty"):
        OAuthVerifier(OAuthConfig("https://idp.example", " "))
    with pytest.raises(UsageError, match="--oauth-jwks-url 'file:///etc/passwd' is not an http"):
        OAuthVerifier(OAuthConfig("https://idp.example", AUDIENCE, jwks_url="file:///etc/passwd"))
    # the OpenID configuration names another issuer
    http_server.add(
        "/other/.well-known/openid-configuration",
        body='{"issuer": "https://x.example", "jwks_uri": "https://x.example/certs"}',
    )
    with pytest.raises(UsageError, match=re.escape("is the configuration of issuer 'https://x.example'")):
        OAuthVerifier(OAuthConfig(http_server.url("/other"), AUDIENCE)).start()
    http_server.add(
        "/html/.well-known/openid-configuration", body="<html>login</html>", content_type="text/html"
    )
    with pytest.raises(UsageError, match="is not an OpenID configuration"):
        OAuthVerifier(OAuthConfig(http_server.url("/html"), AUDIENCE)).start()
    http_server.add("/nokeys/.well-known/jwks.json", body='{"keys": []}')
    with pytest.raises(UsageError, match="key set is unusable"):
        OAuthVerifier(OAuthConfig(http_server.url("/nokeys"), AUDIENCE)).start()


def test_an_unreachable_issuer_warns_and_its_tokens_wait(http_server: HttpServer) -> None:  # noqa: F811
    issuer = Issuer(http_server)
    token = issuer.token()
    http_server.add("/realms/docs/certs", Reply(status=503))
    verifier = OAuthVerifier(OAuthConfig(issuer.url, AUDIENCE), retry=0)
    warning = verifier.start()
    assert warning is not None and warning.startswith(f"cannot fetch the signing keys of {issuer.url} now")
    assert "its tokens are refused until they can be fetched" in warning
    refused = _refused(verifier, token)
    assert refused.reason == "unavailable" and "cannot be fetched now" in refused.message
    http_server.add("/realms/docs/certs", issuer._jwks)  # the issuer is back
    assert verifier.verify(token).name == "alice"
