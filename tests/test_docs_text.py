"""What a hand-written Sphinx page says of an API inside its directive (the body under
``.. autoclass:: LFUCache``), besides the docstring, is that API's ``docs_text``: find_api
reads it as it reads the docstring (a tour of cachetools: its docs' own sentence for
``LFUCache`` did not find it, the one-line docstring said only "LFU cache implementation")."""

from __future__ import annotations

from dataclasses import dataclass

from docmentor.library.find.api_text import api_doc, passage_texts
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.knowledge.enrich import describe_by_returns, describe_from_docs
from docmentor.library.knowledge.mentions import MentionResolver
from docmentor.library.models import ApiEntry, ApiReturn


@dataclass
class Doc:
    heading: str
    text: str
    path: str = "index.rst"


def entry(api_id: str, kind: str, docstring: str, **kw: object) -> ApiEntry:
    parent = api_id.rpartition(".")[0] if kind in ("method", "property", "attribute") else None
    summary = docstring.split("\n\n")[0]
    return ApiEntry(
        api_id=api_id,
        name=api_id.rpartition(".")[2],
        kind=kind,  # type: ignore[arg-type]
        parent=parent,
        docstring=docstring,
        description=summary,
        **kw,  # type: ignore[arg-type]
    )


def caches() -> list[ApiEntry]:
    return [
        entry(
            "cache.core.LRUCache",
            "class",
            "Least Recently Used (LRU) cache implementation.",
            aliases=["cache.LRUCache"],
        ),
        entry(
            "cache.core.LFUCache",
            "class",
            "Least Frequently Used (LFU) cache implementation.",
            aliases=["cache.LFUCache"],
        ),
        entry(
            "cache.core.TTLCache",
            "class",
            "LRU Cache implementation with per-item time-to-live (TTL) value.",
            aliases=["cache.TTLCache"],
        ),
        entry("cache.core.TTLCache.expire", "method", "Remove expired items from the cache."),
        entry("cache.core.helper", "function", ""),
    ]


PAGE = """\
Cache implementations
=====================

.. autoclass:: LFUCache(maxsize, getsizeof=None)
   :members: popitem,
             currsize

   This class counts how often an item is retrieved, and discards the
   items used least often to make space when necessary.

   For example::

      cache = LFUCache(maxsize=2)

   .. note:: A note is a directive of its own, not the class's words.

.. autoclass:: TTLCache(maxsize, ttl, timer=time.monotonic, getsizeof=None)
   :members: popitem, timer, ttl

   This class associates a time-to-live value with each item.

   .. method:: expire(self, time=None)

      Expired items will be removed from a cache only at the next
      mutating operation.

   Least recently used items are discarded first when the cache is full.

.. autofunction:: helper

   Helps with keys.
"""


def test_a_directives_body_prose_is_its_apis_docs_text() -> None:
    entries = caches()
    by_id = {e.api_id: e for e in entries}
    describe_from_docs(
        entries, [Doc("Cache implementations", PAGE)], MentionResolver(entries), package="cache"
    )
    # every paragraph of the body: not the options (nor the option's next line), the
    # literal block after "::", a nested directive or its body
    assert by_id["cache.core.LFUCache"].docs_text == (
        "This class counts how often an item is retrieved, and discards the items used least "
        "often to make space when necessary.\nFor example::"
    )
    # the class's words around a nested member's directive; the member's words are its own
    assert by_id["cache.core.TTLCache"].docs_text == (
        "This class associates a time-to-live value with each item.\n"
        "Least recently used items are discarded first when the cache is full."
    )
    assert by_id["cache.core.TTLCache.expire"].docs_text == (
        "Expired items will be removed from a cache only at the next mutating operation."
    )
    # an API without a docstring: described from the body, which it then reads once
    helper = by_id["cache.core.helper"]
    assert helper.description == "Helps with keys." and helper.docs_text == "Helps with keys."
    assert api_doc(helper) == "Helps with keys."
    assert by_id["cache.core.LRUCache"].docs_text == ""  # no directive: nothing


def test_a_body_that_repeats_the_docstring_adds_nothing() -> None:
    entries = caches()
    lfu = next(e for e in entries if e.name == "LFUCache")
    lfu.docstring = "Least Frequently Used (LFU) cache implementation.\n\nThis class counts how often\nan item is retrieved."
    page = ".. autoclass:: LFUCache\n\n   This class counts how often an item is retrieved.\n\n   It is thread-unsafe.\n"
    describe_from_docs(
        entries, [Doc("API", page), Doc("API again", page)], MentionResolver(entries), package="cache"
    )
    assert lfu.docs_text == "It is thread-unsafe."  # once, though two pages say it


def test_an_options_value_going_on_is_no_description() -> None:
    entries = caches()
    for e in entries:
        e.description = e.docstring = ""
    page = ".. autoclass:: LRUCache\n   :members: get, pop,\n             clear\n"
    describe_from_docs(entries, [Doc("API", page)], MentionResolver(entries), package="cache")
    lru = next(e for e in entries if e.name == "LRUCache")
    assert lru.description == "" and lru.docs_text == ""


def test_find_api_reads_the_docs_words_on_an_api() -> None:
    entries = caches()
    describe_from_docs(
        entries, [Doc("Cache implementations", PAGE)], MentionResolver(entries), package="cache"
    )
    index = ApiIndex({"cache": (entries, [])})
    task = "discard the items retrieved least often when space is needed"
    hits = index.find(task, library="cache", limit=3)
    assert hits[0].entry.api_id == "cache.core.LFUCache"
    # and it is embedded as one of the API's passages
    lfu = next(e for e in entries if e.name == "LFUCache")
    assert any("counts how often an item is retrieved" in p for p in passage_texts(lfu))
    # without the docs' words, the docstrings alone do not tell LFU from the others
    bare = caches()
    hits = ApiIndex({"cache": (bare, [])}).find(task, library="cache", limit=3)
    assert not hits or hits[0].entry.api_id != "cache.core.LFUCache"


def test_every_api_gets_its_docs_words_when_all_are_described() -> None:
    """Review: the pass stopped once no API wanted a description, so a package whose APIs
    all have docstrings got no docs_text at all."""
    entries = [e for e in caches() if e.name != "helper"]
    describe_from_docs(
        entries, [Doc("Cache implementations", PAGE)], MentionResolver(entries), package="cache"
    )
    assert next(e for e in entries if e.name == "LFUCache").docs_text.startswith("This class counts")


def test_a_paragraph_opening_with_a_role_is_prose() -> None:
    """Review: `:class:`LFUCache` counts …` was read as an option (a field line)."""
    entries = caches()
    page = ".. autoclass:: LFUCache\n   :members:\n\n   :class:`LFUCache` counts how often an item\n   is retrieved.\n"
    describe_from_docs(entries, [Doc("API", page)], MentionResolver(entries), package="cache")
    lfu = next(e for e in entries if e.name == "LFUCache")
    assert lfu.docs_text == ":class:`LFUCache` counts how often an item is retrieved."


def test_a_call_only_its_returns_line_describes_is_described_by_it() -> None:
    """A peewee tour: `Database.table_exists` is documented only by fields (`:param str
    table:` and `:returns: ``bool`` indicating whether table exists.`); it had no words
    for find_api. Its returns line describes it, its own lead dropped; an API with a
    description, a class, or a call that returns nothing said keeps what it has."""
    entries = [
        entry("orm.Database", "class", ""),
        entry("orm.Database.table_exists", "method", ""),
        entry("orm.Database.is_closed", "method", ""),
        entry("orm.Database.connect", "method", "Open a connection."),
        entry("orm.Database.close", "method", ""),
    ]
    page = (
        ".. py:class:: Database()\n\n"
        "    .. py:method:: table_exists(table[, schema=None])\n\n"
        "        :param str table: Table name.\n"
        "        :returns: ``bool`` indicating whether table exists.\n\n"
        "    .. py:method:: is_closed()\n\n"
        "        :returns: return ``True`` if database is closed, ``False`` if open.\n"
        "        :rtype: bool\n\n"
        "    .. py:method:: connect()\n\n"
        "        :returns: whether a connection was opened.\n\n"
        "    .. py:method:: close()\n\n"
        "        :param bool force: close even when a transaction is open.\n"
    )
    for e in entries[1:]:
        e.returns = ApiReturn()
    by_id = {e.api_id: e for e in entries}
    describe_from_docs(entries, [Doc("Database", page)], MentionResolver(entries), package="orm")
    assert by_id["orm.Database.table_exists"].description == ""  # fields are no prose
    assert describe_by_returns(entries) == 2
    assert (
        by_id["orm.Database.table_exists"].description == "Returns ``bool`` indicating whether table exists."
    )
    assert (
        by_id["orm.Database.is_closed"].description
        == "Returns ``True`` if database is closed, ``False`` if open."
    )
    assert by_id["orm.Database.connect"].description == "Open a connection."
    assert by_id["orm.Database.close"].description == ""
    assert by_id["orm.Database"].description == ""
    assert "whether table exists" in api_doc(by_id["orm.Database.table_exists"])
