"""What a find_api answer shows of an API (``library/find/hits.py``)."""

from __future__ import annotations

from docmentor.library.find.hits import ApiHit
from docmentor.library.models import ApiEntry


def _shown(**fields: object) -> dict[str, object]:
    entry = ApiEntry(**fields)  # type: ignore[arg-type]
    return ApiHit(entry, "lib", relevance=1.0, score=1.0).to_dict(1)


def test_the_signature_names_the_api_as_users_call_it() -> None:
    """trio defines ``to_thread_run_sync`` and exports it only as ``trio.to_thread.run_sync``:
    the answer's signature says ``run_sync``, so an agent does not call the private name."""
    shown = _shown(
        api_id="trio._threads.to_thread_run_sync",
        aliases=["trio.to_thread.run_sync"],
        kind="function",
        name="to_thread_run_sync",
        signature="async to_thread_run_sync(sync_fn, *args, limiter=None)",
    )
    assert shown["import_path"] == "trio.to_thread.run_sync"
    assert shown["signature"] == "async run_sync(sync_fn, *args, limiter=None)"
    same = _shown(
        api_id="pkg._core.get", aliases=["pkg.get"], kind="function", name="get", signature="get(url)"
    )
    assert same["signature"] == "get(url)"
    foreign = _shown(  # another language's declaration: as written
        api_id="lib.conn.connect",
        aliases=["lib.open"],
        kind="function",
        name="connect",
        language="typescript",
        signature="function connect(uri: string): Connection",
    )
    assert foreign["signature"] == "function connect(uri: string): Connection"
