"""Who may use a served index: bearer tokens stored in the index (:mod:`.tokens`), OAuth
access tokens from an issuer (:mod:`.oauth`), the check a server runs per request
(:mod:`.guard`), and the readiness a load balancer asks for (:mod:`.health`).

Public names are exported by the package root (``docmentor.create_token`` …).
"""
