"""Which of an API's paths to show a user: the one they would import it by."""

from __future__ import annotations

from collections.abc import Iterable

from docmentor.library.surface.api_python_shadow import MODULE_SUFFIX


def private_path(path: str) -> bool:
    """Whether a path has a private part (``pkg._core.x``); a special method it ends in is
    none (``pkg.Marker.__call__``: what calling a ``Marker`` does)."""
    *parts, last = path.split(".")
    special = len(last) > 4 and last.startswith("__") and last.endswith("__")
    return any(part.startswith("_") for part in parts) or (last.startswith("_") and not special)


def import_path(api_id: str, aliases: Iterable[str] = (), bound_names: Iterable[str] = ()) -> str:
    """The path users import an API by: the shortest one without a private part
    (``pkg.connect``, not ``pkg.compat.connect`` nor ``pkg._core.connect``), the defining one
    first among those as short (an inherited method by its class, ``fields.Field.make_error``,
    not ``fields.IP.make_error``), then one through the defining class's name when the
    definition's own path is private (``pkg.Base.value`` for ``pkg._base.Base.value``, not
    ``pkg.IP.value``); ``api_id`` itself when every path has a private part. A
    shadowed submodule's id ends in ``~module``: its path is shown without it. A method
    that a module-level instance binds is imported by one of those module-level names
    (``bound_names``) when one is public: ``jwt.api_jwt.decode_complete``, never
    ``jwt.PyJWT.decode_complete``, which would take the token for self."""
    public = [p for p in bound_names if not private_path(p)]
    public = public or [p for p in (api_id, *aliases) if not private_path(p)]
    # of as short ones, one through the class (or module) that defines it: `DirtyEquals.value`,
    # not a subclass's `IsIP.value`, though the definition's own path is private
    owner = api_id.rsplit(".", 2)[-2] if api_id.count(".") >= 1 else ""
    # of as short ones, one by the API's own name: `wait_random_exponential`, not the alias
    # `wait_full_jitter` a package also exports it as (its docstring and examples say the name)
    own = api_id.removesuffix(MODULE_SUFFIX).rpartition(".")[2]
    best = (
        min(
            public,
            key=lambda p: (
                p.count("."),
                p != api_id,
                p.rpartition(".")[2] != own,
                p.rsplit(".", 2)[-2:-1] != [owner],
                len(p),
                p,
            ),
        )
        if public
        else api_id
    )
    # a submodule its package's same-named function hides: ``import pkg.retry`` imports it
    return best.removesuffix(MODULE_SUFFIX)
