"""find_api's and search_docs' output schemas written out flat (mcp_schemas.flat_schema): no ``$ref``, nullable
types as type lists, the same values valid as with the schema pydantic derives.

The MCP client validates every answer against the published schema with jsonschema; the
flat one is the cheaper to check (figures in flat_schema's docstring).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NotRequired

import anyio
import jsonschema
import pytest
from mcp import Client
from pydantic import TypeAdapter
from typing_extensions import TypedDict

from docmentor import mcp_schemas
from docmentor.engine import Docmentor
from docmentor.server import build_server


def nodes(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from nodes(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from nodes(value)


class Leaf(TypedDict, total=False):
    name: str
    type: str | None
    tags: list[str]


class Node(TypedDict):
    rank: int
    leaf: Leaf | None
    leaves: list[Leaf]
    counts: dict[str, int | None]
    note: NotRequired[str | None]


VALID = [
    {"rank": 1, "leaf": None, "leaves": [], "counts": {}},
    {
        "rank": 2,
        "leaf": {"name": "a", "type": None},
        "leaves": [{"tags": ["x"]}],
        "counts": {"a": None, "b": 3},
    },
    {"rank": 3, "leaf": {}, "leaves": [{"name": "b", "type": "int"}], "counts": {}, "note": None},
]
INVALID = [
    {"rank": "1", "leaf": None, "leaves": [], "counts": {}},
    {"rank": 1, "leaf": 3, "leaves": [], "counts": {}},
    {"rank": 1, "leaf": {"type": 5}, "leaves": [], "counts": {}},
    {"rank": 1, "leaf": None, "leaves": [None], "counts": {}},
    {"rank": 1, "leaf": None, "leaves": [{"tags": [1]}], "counts": {}},
    {"rank": 1, "leaf": None, "leaves": [], "counts": {"a": "x"}},
    {"rank": 1, "leaf": None, "leaves": []},
    {"rank": 1, "leaf": None, "leaves": [], "counts": {}, "note": 2},
]


def flat(tp: Any) -> dict[str, Any]:
    schema = TypeAdapter(tp).json_schema()
    out: dict[str, Any] = mcp_schemas.flat_schema(
        schema, lambda ref: schema["$defs"][ref["$ref"].rsplit("/", 1)[-1]]
    )
    out.pop("$defs", None)
    return out


def test_the_flat_schema_accepts_and_rejects_what_the_derived_one_does() -> None:
    plain, flattened = TypeAdapter(Node).json_schema(), flat(Node)
    assert "$ref" in json.dumps(plain) and "anyOf" in json.dumps(plain)
    assert not any("$ref" in n or "anyOf" in n for n in nodes(flattened))
    assert flattened["properties"]["leaf"]["type"] == ["object", "null"]
    assert flattened["properties"]["counts"]["additionalProperties"] == {"type": ["integer", "null"]}
    for value in VALID:
        jsonschema.validate(value, plain)
        jsonschema.validate(value, flattened)
    for value in INVALID:
        for schema in (plain, flattened):
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate(value, schema)


def test_alternatives_that_are_not_a_type_or_null_stay_as_they_are() -> None:
    enum_or_null = {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}
    assert mcp_schemas.flat_schema(enum_or_null, None) == enum_or_null  # null is not in the enum
    two_objects = {"anyOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]}
    assert mcp_schemas.flat_schema(two_objects, None) == two_objects
    with_default = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": "x"}
    assert mcp_schemas.flat_schema(with_default, None) == with_default


def test_a_recursive_definition_is_refused() -> None:
    schema = {"$defs": {"T": {"type": "object", "properties": {"child": {"$ref": "#/$defs/T"}}}}}
    with pytest.raises(ValueError, match="recursive"):
        mcp_schemas.flat_schema({"$ref": "#/$defs/T"}, lambda ref: schema["$defs"]["T"])


def test_find_api_publishes_the_flat_schema_and_its_answers_match_it(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "db")

    async def go() -> Any:
        async with Client(build_server(engine, tools=["api"])) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = anyio.run(go)
    schema = tools["find_api"].output_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "$defs" not in schema and not any("$ref" in n or "anyOf" in n for n in nodes(schema))
    item = schema["properties"]["results"]["items"]
    assert item["properties"]["returns"]["type"] == ["object", "null"]
    assert item["properties"]["parameters"]["items"]["properties"]["default"]["type"] == ["string", "null"]
    answer: dict[str, Any] = {
        "query": "q",
        "results": [
            {
                "rank": 1,
                "api_id": "pkg.f",
                "signature": "f(x: int = 1) -> str",
                "parameters": [{"name": "x", "type": "int", "default": "1", "required": False}],
                "returns": None,
                "signals": {"lexical": 1, "semantic": None},
                "deprecated": None,
            }
        ],
        "versions": {"pkg": None},
        "warnings": [],
    }
    jsonschema.validate(answer, schema)
    wrong = copy.deepcopy(answer)
    wrong["results"][0]["parameters"][0]["required"] = "no"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, schema)
    engine.close()


def test_search_docs_publishes_a_flat_schema_its_answers_match(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Timeouts\n\nSet a timeout on the client.\n", encoding="utf-8")
    (docs / "b.md").write_text("# Timeouts\n\nSet a timeout on the client.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "db", embeddings=False)
    engine.add(docs, name="d")

    async def go() -> tuple[Any, Any]:
        async with Client(build_server(engine)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            answer = await client.call_tool("search_docs", {"query": "timeout", "limit": 5})
            return tools["search_docs"].output_schema, answer.structured_content

    schema, answer = anyio.run(go)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "$defs" not in schema and not any("$ref" in n or "anyOf" in n for n in nodes(schema))
    item = schema["properties"]["results"]["items"]
    assert item["properties"]["source_version"]["type"] == ["string", "null"]
    assert answer["results"][0]["also"], answer  # the copy is listed: the nested items are checked too
    jsonschema.validate(answer, schema)
    wrong = copy.deepcopy(answer)
    wrong["results"][0]["also"][0]["line_start"] = "1"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, schema)
    engine.close()
