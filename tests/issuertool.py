"""A test OAuth issuer on 127.0.0.1 (tests/httpserver.py): its OpenID configuration, its JWKS
(RSA and EC keys generated here with ``cryptography``, rotatable), and JWTs it signs."""

from __future__ import annotations

import json
import time
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from httpserver import HttpServer, Reply, Request

AUDIENCE = "docmentor-test"


class Issuer:
    """``issuer.url`` is its ``iss``; ``keys`` (kid → private key) are published as its JWKS."""

    def __init__(self, server: HttpServer, *, discovery: bool = True) -> None:
        self.server = server
        self.url = server.url("/realms/docs")
        self.keys: dict[str, Any] = {}
        self.add_key("k1")
        if discovery:
            server.add(
                "/realms/docs/.well-known/openid-configuration",
                lambda _req: Reply(
                    body=json.dumps({"issuer": self.url, "jwks_uri": self.url + "/certs"}),
                    content_type="application/json",
                ),
            )
        for path in ("/realms/docs/certs", "/realms/docs/.well-known/jwks.json"):
            server.add(path, self._jwks)

    def add_key(self, kid: str, kind: str = "rsa") -> Any:
        key = (
            rsa.generate_private_key(public_exponent=65537, key_size=2048)
            if kind == "rsa"
            else ec.generate_private_key(ec.SECP256R1())
        )
        self.keys[kid] = key
        return key

    def _jwks(self, _req: Request) -> Reply:
        keys = []
        for kid, key in self.keys.items():
            if isinstance(key, rsa.RSAPrivateKey):
                jwk = RSAAlgorithm.to_jwk(key.public_key(), as_dict=True) | {"alg": "RS256"}
            else:
                jwk = ECAlgorithm.to_jwk(key.public_key(), as_dict=True) | {"alg": "ES256"}
            keys.append(jwk | {"kid": kid, "use": "sig"})
        return Reply(body=json.dumps({"keys": keys}), content_type="application/json")

    def claims(self, **overrides: Any) -> dict[str, Any]:
        now = int(time.time())
        base = {
            "iss": self.url,
            "aud": AUDIENCE,
            "sub": "alice",
            "iat": now,
            "exp": now + 300,
            "scope": "openid read",
        }
        base.update(overrides)
        return {k: v for k, v in base.items() if v is not None}

    def token(self, kid: str = "k1", *, key: Any = None, alg: str | None = None, **claims: Any) -> str:
        """A JWT signed by ``kid``'s key (or ``key``), with :meth:`claims` and ``claims``."""
        signing = key if key is not None else self.keys[kid]
        algorithm = alg or ("RS256" if isinstance(signing, rsa.RSAPrivateKey) else "ES256")
        return jwt.encode(self.claims(**claims), signing, algorithm=algorithm, headers={"kid": kid})
