"""The LLM client's limits against hostile or broken servers on 127.0.0.1.

An overall deadline (a server that drips its answer), a size cap (a server that never
stops), linear ``<think>`` stripping and JSON finding, linear de-duplication of the
detector's issues, and one bad part of a page skipped while the others are read.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from clitool import Cli
from docmentor.clarity.llm_detector import detect_issues
from docmentor.library.knowledge.enrich import enrich_entries
from docmentor.library.models import ApiEntry
from docmentor.llm import LLMClient
from docmentor.llm.config import LLMConfig, LLMError, LLMReplyError
from docmentor.llm.replies import extract_json, strip_think
from httpserver import Reply
from openai_server import ChatRequest, OpenAIServer, completion


class Answer(BaseModel):
    answer: str
    confidence: float


ASK = [{"role": "user", "content": "What is the answer?"}]
GOOD = {"answer": "42", "confidence": 0.9}


def make_client(base_url: str, **overrides: Any) -> LLMClient:
    settings: dict[str, Any] = {
        "base_url": base_url,
        "model": "test-model",
        "timeout": 2.0,
        "max_attempts": 1,
        "backoff": 0.01,
        "max_backoff": 0.05,
    }
    settings.update(overrides)
    return LLMClient(LLMConfig(**settings))


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as started:
        yield started


# ------------------------------------------------- a raw server for what HTTP servers won't do


class RawServer:
    """Accepts connections on 127.0.0.1, reads one request, then hands the socket and the
    request's body to ``talk``.

    ``sent`` counts the bytes ``talk`` managed to send (it stops when the client goes away).
    """

    def __init__(self, talk: Callable[[socket.socket, RawServer, bytes], None]) -> None:
        self.talk = talk
        self.sent = 0
        self.mode = ""  # for ``talk`` to branch on
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                piece = conn.recv(65536)
                if not piece:
                    return
                data += piece
            head, _, body = data.partition(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                ),
                0,
            )
            while len(body) < length:
                piece = conn.recv(65536)
                if not piece:
                    return
                body += piece
            try:
                self.talk(conn, self, body)
            except OSError:
                pass  # the client gave up: that is what the tests want

    def send(self, conn: socket.socket, data: bytes) -> None:
        conn.sendall(data)
        self.sent += len(data)

    def close(self) -> None:
        self.stopping.set()
        self.listener.close()
        self.thread.join(5)


def chat_body(content: str) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()


# ------------------------------------------------------------------------- size cap


def test_an_endless_answer_is_abandoned_at_the_size_cap() -> None:
    """A server that never stops (no Content-Length, chunked) is read only up to the cap."""

    def endless(conn: socket.socket, srv: RawServer, request: bytes) -> None:
        srv.send(
            conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        piece = b"x" * 65536
        chunk = b"%x\r\n%s\r\n" % (len(piece), piece)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # 20 s of as much as the client will take
            srv.send(conn, chunk)

    raw = RawServer(endless)
    try:
        started = time.monotonic()
        with (
            make_client(raw.base_url, max_response_bytes=1_000_000, timeout=10) as client,
            pytest.raises(LLMReplyError) as info,
        ):
            client.chat(ASK)
        assert time.monotonic() - started < 5
        assert "too large" in info.value.message and "limit is 1,000,000" in info.value.message
        time.sleep(0.2)
        # what the server got out is the cap plus the sockets' buffers, not 20 s of data
        assert raw.sent < 40_000_000, raw.sent
    finally:
        raw.close()


def test_a_declared_oversized_answer_is_refused_unread(server: OpenAIServer) -> None:
    big = "y" * 3_000_000
    server.script(completion(big))
    with (
        make_client(server.base_url, max_response_bytes=1_000_000) as client,
        pytest.raises(LLMReplyError, match=r"too large \(3,000,\d+ bytes; the limit is 1,000,000\)"),
    ):
        client.chat(ASK)
    # under the cap: read as before
    server.script(completion("small"))
    with make_client(server.base_url, max_response_bytes=1_000_000) as client:
        assert client.chat(ASK) == "small"


# ------------------------------------------------------------------------- deadline


def test_a_dripping_body_is_cut_off_at_the_overall_deadline(server: OpenAIServer) -> None:
    """One byte every 0.3 s never trips a per-read timeout; the attempt's deadline ends it."""
    body = chat_body("a reply that takes far too long to arrive")

    def drip(req: ChatRequest) -> Reply:
        return Reply(body=body, content_type="application/json", chunk_size=1, chunk_delay=0.3)

    server.script(drip)
    started = time.monotonic()
    with (
        make_client(server.base_url, timeout=1.0, max_attempts=2) as client,
        pytest.raises(LLMError, match=r"failed after 2 attempts: timed out after 1 s") as info,
    ):
        client.chat(ASK)
    elapsed = time.monotonic() - started
    assert elapsed < 4, elapsed  # two attempts of 1 s (+ backoff), not len(body) * 0.3 s
    assert info.value.hint is not None and "DOCMENTOR_LLM_TIMEOUT" in info.value.hint
    assert len(server.requests) == 2


def test_a_dripping_status_line_is_cut_off_at_the_overall_deadline() -> None:
    """The deadline also ends a read that has not got the headers yet (the socket is shut down)."""

    def drip_head(conn: socket.socket, srv: RawServer, request: bytes) -> None:
        for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: " + b"z" * 200:
            srv.send(conn, bytes([byte]))
            time.sleep(0.2)

    raw = RawServer(drip_head)
    try:
        started = time.monotonic()
        with (
            make_client(raw.base_url, timeout=1.0) as client,
            pytest.raises(LLMError, match="timed out after 1 s"),
        ):
            client.chat(ASK)
        assert time.monotonic() - started < 2.5
    finally:
        raw.close()


def test_a_prompt_answer_within_the_deadline_is_read(server: OpenAIServer) -> None:
    body = chat_body("dripped but in time")
    server.script(
        lambda req: Reply(body=body, content_type="application/json", chunk_size=16, chunk_delay=0.02)
    )
    with make_client(server.base_url, timeout=3.0) as client:
        assert client.chat(ASK) == "dripped but in time"


# ------------------------------------------------------------------- <think> and JSON


def test_an_unclosed_think_is_linear_and_drops_the_rest(server: OpenAIServer) -> None:
    """The old ``<think>.*?</think>`` regex took 70 s on a reply like this one."""
    unclosed = "<think>" * 60_000 + " still thinking " + json.dumps(GOOD)
    started = time.monotonic()
    assert strip_think(unclosed) == ("", True)
    assert strip_think("a<THINK>x</think>b<think>y</Think>c<think>z") == ("abc", True)
    assert strip_think("<think>" + "</think>" * 60_000 + "tail") == ("</think>" * 59_999 + "tail", False)
    assert time.monotonic() - started < 1

    # through the client: the unclosed reply gets the corrective retry, the second answer counts
    server.script(completion(unclosed), completion("<think>ok, the answer is 42</think>" + json.dumps(GOOD)))
    started = time.monotonic()
    with make_client(server.base_url) as client:
        assert client.chat_json(ASK, Answer) == Answer(answer="42", confidence=0.9)
    assert time.monotonic() - started < 2
    correction = server.requests[1].messages[-1]["content"]
    assert "<think> never ended" in correction

    server.script(completion(unclosed))
    with make_client(server.base_url) as client, pytest.raises(LLMReplyError, match="never ended"):
        client.chat_json(ASK, Answer)


ADVERSARIAL = [
    '{"a":' * 100_000,  # an object that never closes, nested: raw_decode from every brace was quadratic
    "{" * 100_000 + "}" * 100_000,  # 100,000 nested spans
    '{"x": "' + "{" * 200_000,  # an unterminated string
    "```json\n" * 50_000,  # fences that never close properly
    "``" * 100_000,
    "{}" * 100_000,  # many empty objects: the first is the answer
    ("prose { with " + '"quote ') * 30_000,
]


@pytest.mark.parametrize("text", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_extract_json_is_linear_on_adversarial_replies(text: str) -> None:
    started = time.monotonic()
    try:
        extract_json(text)
    except ValueError:
        pass
    assert time.monotonic() - started < 1


def test_extract_json_still_finds_objects_in_prose() -> None:
    assert extract_json('Here: {"a": {"b": "}"}} and more') == {"a": {"b": "}"}}
    assert extract_json('{the outer is prose {"a": 1} done}') == {"a": 1}
    assert extract_json('He said "hi.\n{"a": [1, {"c": "d\\"}"}]}') == {"a": [1, {"c": 'd"}'}]}
    with pytest.raises(ValueError, match="nested too deeply"):
        extract_json('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")


# --------------------------------------------------------------- the detector on bad parts

ISSUE = {"type": "unclear_instruction", "severity": "warning", "dimensions": ["completeness"]}


def numbered_doc(sections: int, lines: int) -> str:
    parts = ["# Guide", ""]
    for n in range(1, sections + 1):
        parts += [f"## Section {n}", ""]
        parts += [
            f"Step {n}.{k}: set the widget option number {k} before you go on." for k in range(1, lines + 1)
        ]
        parts.append("")
    return "\n".join(parts)


def test_500_near_duplicate_issues_are_deduplicated_in_linear_time(server: OpenAIServer) -> None:
    """The old pairwise difflib comparison took 86 s on 500 issues."""
    text = numbered_doc(1, 700)
    near = [  # 500 rewordings of one complaint about lines 10-11 ...
        {**ISSUE, "type": f"kind_{i}", "line": 10 + i % 2,
         "message": f"The widget option in this step is not explained; what it does is unclear ({i % 7})."}
        for i in range(500)
    ]  # fmt: skip
    distinct = [  # ... and 300 different ones on lines far apart, all kept
        {**ISSUE, "type": f"other_{i}", "line": 100 + 2 * i, "message": f"Term{i} is used before term{i}x is defined."}
        for i in range(300)
    ]  # fmt: skip
    server.script(completion(json.dumps({"issues": near + distinct})))
    started = time.monotonic()
    with make_client(server.base_url, timeout=10) as client:
        found = detect_issues(client, path="g.md", text=text, existing=[], chunk_chars=10**7)
    elapsed = time.monotonic() - started
    assert elapsed < 3, elapsed
    near_kept = [i for i in found if i.line in (10, 11)]
    assert len(near_kept) == 1, [i.message for i in near_kept]
    assert len(found) == 301


def test_a_deeply_nested_reply_skips_its_part_and_the_rest_is_read(
    server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A RecursionError used to abort the whole run; now the part is skipped with a warning."""
    text = numbered_doc(3, 20)
    nested_content = '{"issues": ' + "[" * 100_000 + "]" * 100_000 + "}"
    nested_body = "[" * 200_000 + "]" * 200_000  # the HTTP answer itself, not a chat completion

    def good(req: ChatRequest) -> Reply:  # an issue on the part's first line
        match = re.search(r"lines (\d+)-(\d+) of", req.prompt)
        assert match is not None
        line = int(match.group(1))
        return completion(json.dumps({"issues": [{**ISSUE, "line": line, "message": "Step is vague."}]}))(req)

    def raw_nested(req: ChatRequest) -> Reply:
        return Reply(body=nested_body, content_type="application/json")

    # part 1: nested twice (with the correction between); part 2: a nested HTTP body; part 3: good
    server.script(completion(nested_content), completion(nested_content), raw_nested, good)
    with make_client(server.base_url) as client, caplog.at_level(logging.WARNING):
        found = detect_issues(client, path="g.md", text=text, existing=[], chunk_chars=1600)
    assert len(server.requests) == 4  # three parts, the first asked twice
    third = re.search(r"lines (\d+)-", server.requests[3].prompt)
    assert third is not None and [i.line for i in found] == [int(third.group(1))]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("nested too deeply" in w and "checked by the rules alone" in w for w in warnings), warnings
    assert sum("checked by the rules alone" in w for w in warnings) == 2


def test_an_oversized_answer_skips_its_part(server: OpenAIServer, caplog: pytest.LogCaptureFixture) -> None:
    text = numbered_doc(2, 30)
    reply = {"issues": [{**ISSUE, "line": 40, "message": "Step is vague."}]}
    server.script(completion("z" * 200_000), completion(json.dumps(reply)))
    with make_client(server.base_url, max_response_bytes=100_000) as client, caplog.at_level(logging.WARNING):
        found = detect_issues(client, path="g.md", text=text, existing=[], chunk_chars=1600)
    assert [i.line for i in found] == [40]
    assert any("too large" in r.getMessage() for r in caplog.records)


# ---------------------------------------------------------------- enrich's keyword de-dup


def test_enrich_keywords_are_deduplicated_in_linear_time() -> None:
    words = " ".join("w" + "".join(chr(97 + (i // 26**k) % 26) for k in range(4)) for i in range(100_000))
    entry = ApiEntry(
        api_id="p.f", kind="function", name="f", description=f"Frobnicate frobnicate the {words}"
    )
    started = time.monotonic()
    enrich_entries([entry], [])
    assert time.monotonic() - started < 1
    assert entry.search_keywords[:3] == ["frobnicate", "waaaa", "wbaaa"]


# ------------------------------------------------------------- through `docmentor clarity --llm`


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    def point_at(base_url: str) -> None:
        monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", base_url)
        monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "test-model")
        monkeypatch.setenv("DOCMENTOR_LLM_MAX_ATTEMPTS", "1")
        monkeypatch.delenv("DOCMENTOR_LLM_API_KEY", raising=False)

    return point_at


def two_pages(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("bad", "good"):
        (docs / f"{name}.md").write_text(numbered_doc(1, 8), encoding="utf-8")
    return docs


def test_cli_a_nested_or_endless_answer_for_one_page_leaves_the_others_scored(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    llm_env: Callable[[str], None],
) -> None:
    docs = two_pages(tmp_path)
    nested = "[" * 200_000 + "]" * 200_000
    good = {"issues": [{**ISSUE, "line": 5, "message": "Which widget option?"}]}

    def talk(conn: socket.socket, srv: RawServer, request: bytes) -> None:
        srv.send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n")
        if b"bad.md" not in request:
            body = chat_body(json.dumps(good))
            srv.send(conn, b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        elif srv.mode == "nested":
            srv.send(conn, b"Content-Length: %d\r\n\r\n%s" % (len(nested), nested.encode()))
        else:  # endless: far past the 8 MiB cap
            srv.send(conn, b"Transfer-Encoding: chunked\r\n\r\n")
            piece = b"x" * 65536
            for _ in range(20_000):
                srv.send(conn, b"%x\r\n%s\r\n" % (len(piece), piece))

    raw = RawServer(talk)
    try:
        llm_env(raw.base_url)
        cli = Cli(tmp_path / "index", capsys)
        for mode, why in (("nested", "nested too deeply"), ("endless", "too large")):
            raw.mode = mode
            caplog.clear()
            with caplog.at_level(logging.WARNING):
                rc, out, err = cli("clarity", "score", str(docs), "--llm", "--json")
            assert rc == 0, err
            by_path = {Path(d["path"]).name: d for d in json.loads(out)["documents"]}
            assert [i["line"] for i in by_path["good.md"]["issues"] if i["check"] == "llm"] == [5]
            assert [i for i in by_path["bad.md"]["issues"] if i["check"] == "llm"] == []
            warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
            assert any("bad.md" in w and why in w and "checked by the rules alone" in w for w in warned), (
                warned
            )
        assert raw.sent < 60_000_000  # the endless answer was abandoned near the cap
    finally:
        raw.close()


def test_cli_a_dripping_server_ends_at_the_configured_deadline(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    server: OpenAIServer,
    llm_env: Callable[[str], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = two_pages(tmp_path)
    body = chat_body(json.dumps({"issues": []}))
    server.script(
        lambda req: Reply(body=body, content_type="application/json", chunk_size=1, chunk_delay=0.5)
    )
    llm_env(server.base_url)
    monkeypatch.setenv("DOCMENTOR_LLM_TIMEOUT", "1")
    started = time.monotonic()
    rc, out, err = Cli(tmp_path / "index", capsys)("clarity", "score", str(docs / "good.md"), "--llm")
    assert time.monotonic() - started < 4
    assert (rc, out) == (1, "")
    assert err.startswith("error: LLM request to ") and "timed out after 1 s" in err
    assert "DOCMENTOR_LLM_TIMEOUT" in err
