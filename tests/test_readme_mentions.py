"""Which APIs a documentation section names (find_api's ``sections`` ranking)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pytest

from docmentor.library.find.config import DEFAULT
from docmentor.library.knowledge.mentions import MentionResolver
from docmentor.library.models import ApiEntry, Example

DOCUMENTS, USES = DEFAULT.documents_weight, DEFAULT.uses_weight
ApiKind = Literal["function", "class", "method", "property", "attribute", "module"]  # ApiEntry.kind


def api(api_id: str, kind: ApiKind, *aliases: str, parent: str | None = None) -> ApiEntry:
    return ApiEntry(
        api_id=api_id, aliases=list(aliases), kind=kind, name=api_id.rsplit(".", 1)[-1], parent=parent
    )


ENTRIES = [
    api("pkg", "module"),
    api("pkg._client.Client", "class", "pkg.Client"),
    api("pkg._client.Client.send", "method", "pkg.Client.send", parent="pkg._client.Client"),
    api("pkg._client.Client.close", "method", "pkg.Client.close", parent="pkg._client.Client"),
    api("pkg._models.Response", "class", "pkg.Response"),
    api(
        "pkg._models.Response.iter_lines", "method", "pkg.Response.iter_lines", parent="pkg._models.Response"
    ),
    api("pkg._models.Response.close", "method", "pkg.Response.close", parent="pkg._models.Response"),
    api("pkg._models.Response.json", "method", "pkg.Response.json", parent="pkg._models.Response"),
    api("pkg._api.get", "function", "pkg.get"),
    api("pkg._auth.DigestAuth", "class", "pkg.DigestAuth"),
    api("pkg._util.unique_helper", "function"),
]


@dataclass
class Doc:
    """A stored docs section as describe_from_docs reads it."""

    heading: str
    text: str
    path: str = "api.rst"


@dataclass
class Section:
    text: str
    heading_path: list[str] = field(default_factory=list)
    source: str = "pkg-docs"
    path: str = "guide.md"
    line_start: int = 1
    line_end: int = 20


def resolver(examples: list[Example] | None = None) -> MentionResolver:
    return MentionResolver(ENTRIES, examples or [])


def test_names_resolve_by_path_alias_member_receiver_and_short_name() -> None:
    r = resolver()
    assert r.resolve("pkg.Client.send") == {"pkg._client.Client.send"}  # an alias
    assert r.resolve("pkg._models.Response.json") == {"pkg._models.Response.json"}  # the id
    assert r.resolve("Response.iter_lines") == {"pkg._models.Response.iter_lines"}  # Class.member
    assert r.resolve("response.json") == {"pkg._models.Response.json"}  # a receiver named after its class
    assert r.resolve("DigestAuth") == {"pkg._auth.DigestAuth"}  # distinctive short name
    assert r.resolve("unique_helper") == {"pkg._util.unique_helper"}
    assert r.resolve(".iter_lines") == {"pkg._models.Response.iter_lines"}  # unique member
    # ambiguous without context, resolved with the class in scope
    assert r.resolve(".close") == {"pkg._client.Client.close", "pkg._models.Response.close"}
    assert r.resolve(".close", ["pkg._client.Client"]) == {"pkg._client.Client.close"}
    # a plain word only when unique: `get` is, `close` (two) and unknown words are not
    assert r.resolve("get") == {"pkg._api.get"}
    assert r.resolve("close") == set()
    assert r.resolve("nothing.here") == set() and r.resolve("") == set() and r.resolve("pkg") == set()


def test_section_credit_by_how_the_section_names_an_api() -> None:
    text = """\
Call `response.iter_lines()` to read the body line by line, or use `def .close()`.

::: pkg.DigestAuth

```python
client.send(request)
```
"""
    credit = resolver().section_apis(Section(text, heading_path=["API", "`Response`"]))
    assert credit == {
        "pkg._models.Response.iter_lines": USES,
        "pkg._models.Response.close": USES,  # the heading path puts Response in scope
        "pkg._models.Response": DOCUMENTS,  # the section's own heading names it
        "pkg._auth.DigestAuth": DOCUMENTS,  # a mkdocstrings directive
    }  # code blocks count only through the examples the matcher linked (none here)


def test_linked_examples_inside_the_section_credit_their_apis() -> None:
    inside = Example(
        example_id="e1", title="t", code="x", language="python", source="pkg-docs", path="guide.md", line=5,
        apis_used=["pkg._client.Client.send"],
    )  # fmt: skip
    outside = inside.model_copy(update={"example_id": "e2", "line": 40, "apis_used": ["pkg._api.get"]})
    other_doc = inside.model_copy(
        update={"example_id": "e3", "path": "other.md", "apis_used": ["pkg._api.get"]}
    )
    r = resolver([inside, outside, other_doc])
    assert r.section_apis(Section("Some prose.")) == {"pkg._client.Client.send": USES}
    # best score x weight over the found sections
    ranked = r.rank(
        [Section("Use `DigestAuth`.", path="a.md"), Section("::: pkg.DigestAuth", path="b.md")], [1.0, 0.5]
    )
    assert ranked == {"pkg._auth.DigestAuth": max(1.0 * USES, 0.5 * DOCUMENTS)}


def test_sphinx_directives_and_cross_references_name_apis() -> None:
    text = """\
.. autoclass:: pkg.DigestAuth
   :members:

.. py:method:: Client.send(request)

Read it with :meth:`~pkg.Response.iter_lines`, or see :func:`the shortcut <pkg.get>` and
``pkg.Response.json``.
"""
    credit = resolver().section_apis(Section(text, path="api.rst"))
    assert credit == {
        "pkg._auth.DigestAuth": DOCUMENTS,  # autodoc directive
        "pkg._client.Client.send": DOCUMENTS,  # Python-domain directive
        "pkg._models.Response.iter_lines": USES,  # role, ~ shortens the title only
        "pkg._api.get": USES,  # role with a title
        "pkg._models.Response.json": USES,  # rST inline literal
    }
    # outside a role, angle brackets are code (generics, JSX), not a reference's target
    assert resolver().section_apis(Section("Returns `List<DigestAuth>` or `<Client />`.")) == {}


def test_myst_roles_and_directives_name_apis_as_sphinx_ones_do() -> None:
    text = """\
```{autoclass} pkg.DigestAuth
```

Read it with {meth}`~pkg.Response.iter_lines`, or see {func}`the shortcut <pkg.get>` and
{py:meth}`!pkg.Client.close`. The {ref}`unique_helper` page and :doc:`unique_helper` are pages.
"""
    credit = resolver().section_apis(Section(text))
    assert credit == {
        "pkg._auth.DigestAuth": DOCUMENTS,  # a MyST directive fence
        "pkg._models.Response.iter_lines": USES,  # ~ shortens the title only
        "pkg._api.get": USES,  # a titled reference
        "pkg._client.Client.close": USES,  # ! only turns the link off
    }  # {ref} and :doc: name a label or a page, even when it is spelled like an API
    # a MyST colon fence too; and braces inside a code span are no role
    assert resolver().section_apis(Section(":::{autoclass} pkg.DigestAuth\n:::\n")) == {
        "pkg._auth.DigestAuth": DOCUMENTS
    }
    assert resolver().section_apis(Section("A dict `d = {a}` and `DigestAuth`.")) == {
        "pkg._auth.DigestAuth": USES
    }


def test_names_in_prose_are_read_in_linear_time() -> None:
    import time

    from docmentor.library.knowledge.mentions import directive_names

    r = resolver()
    start = time.perf_counter()
    r.section_apis(Section(":" * 100_000))
    r.section_apis(Section(":a" * 50_000, path="other.md"))
    directive_names("\n" * 100_000 + "x")
    assert time.perf_counter() - start < 2.0  # quadratic: ~100 s


def test_default_domain_directives_document_apis_and_their_bodies_describe_undocumented_ones() -> None:
    from docmentor.library.knowledge.enrich import describe_from_docs, docs_summary

    text = ".. data:: unique_helper\n\n    Helps, once.\n\n.. class:: Response\n\n    An HTTP response.\n"
    assert resolver().section_apis(Section(text, path="api.rst")) == {
        "pkg._util.unique_helper": DOCUMENTS,
        "pkg._models.Response": DOCUMENTS,
    }

    entries = [e.model_copy() for e in ENTRIES]
    by_id = {e.api_id: e for e in entries}
    by_id["pkg._client.Client"].description = "Its own docstring."
    sections = [
        # an API page's heading names one API: its first paragraph of prose, emphasis unwrapped;
        # the list of members after it is no description
        Doc("`DigestAuth`", "*Digest authentication, for servers that ask.*\n\n* `def __init__(user)`\n"),
        Doc("`Client`", "A page's words on the client."),  # it has its own: kept
        Doc("Globals", ".. data:: unique_helper\n\n    A helper for the globals.\n\n    More of it.\n"),
        Doc("`Response`", "* `.status_code` - **int**\n* `.json()`\n"),  # only a list: nothing
    ]
    assert describe_from_docs(entries, sections, MentionResolver(entries), package="pkg") == 2
    assert by_id["pkg._auth.DigestAuth"].description == "Digest authentication, for servers that ask."
    # a heading that spells a class's name in words, each word of the name starting the
    # heading's ("Digest authentication" is DigestAuth), describes it too; other headings not
    spelled = [e.model_copy(update={"description": ""}) for e in ENTRIES]
    words = [
        Doc("Authentication", "How to log in, in general terms."),
        Doc("Digest authentication", "A challenge-response scheme: the password never travels."),
        Doc("Client side", "Words about no class at all, on a client."),
    ]
    assert describe_from_docs(spelled, words, MentionResolver(spelled), package="pkg") == 1
    read = {e.api_id: e for e in spelled}
    assert (
        read["pkg._auth.DigestAuth"].description == "A challenge-response scheme: the password never travels."
    )
    assert read["pkg._client.Client"].description == ""  # one word: only a heading of its own
    # a one-word class's name, or its plural, as the whole heading (anyio's "Events", "Locks")
    plural = [Doc("Clientele", "Not about clients."), Doc("Clients", "A client keeps a pool of connections.")]
    assert describe_from_docs(spelled, plural, MentionResolver(spelled), package="pkg") == 1
    assert read["pkg._client.Client"].description == "A client keeps a pool of connections."
    # a directive that documents it wins over a heading before it (a packaging tour: the page
    # "Markers" opened with words on dependencies; its `.. class:: Marker` says what it is)
    again = [e.model_copy(update={"description": ""}) for e in ENTRIES]
    page = [
        Doc("Clients", "One extra requirement of dealing with servers is talking to them."),
        Doc("Reference", ".. class:: Client\n\n    This class keeps a pool of connections open.\n"),
    ]
    assert describe_from_docs(again, page, MentionResolver(again), package="pkg") == 1
    assert {e.api_id: e for e in again}["pkg._client.Client"].description == (
        "This class keeps a pool of connections open."
    )
    assert by_id["pkg._util.unique_helper"].description == "A helper for the globals."
    assert by_id["pkg._client.Client"].description == "Its own docstring."
    assert by_id["pkg._models.Response"].description == ""
    assert docs_summary("## Title\n\n```python\nx = 1\n```\n\n| a | b |\n\nTwo words") == ""
    # words joined by a slash are words (a packaging tour: `Tag.platform`'s "The OS/platform.")
    assert docs_summary("The OS/platform.") == "The OS/platform."
    assert docs_summary("Two/words") == ""
    # (review) a code name or a URL is one word
    for one in ("`get_user_by_id`", "https://example.com/a/b", "See https://example.com/a/b"):
        assert docs_summary(one) == "", one


def test_a_docs_summary_falls_back_on_a_lead_in_that_says_what_its_list_is() -> None:
    """(a WTForms tour) an autoclass body that is a lead-in and a list of choices left the
    class with no description; one that only points ahead, or announces code, stays nothing,
    and a paragraph of prose after the list still wins."""
    from docmentor.library.knowledge.enrich import docs_summary

    lead_in = "Select fields take a ``choices`` parameter which is either:"
    listed = f"{lead_in}\n\n* a list of ``(value, label)`` pairs\n* a callable returning one\n"
    assert docs_summary(listed) == lead_in  # "either." would not be a sentence
    assert docs_summary("The field takes one of these values:\n\n1. one\n2. two") == (
        "The field takes one of these values."
    )
    assert docs_summary(f"{listed}\nA select field renders one <select> element.") == (
        "A select field renders one <select> element."
    )
    assert docs_summary("The options are as follows:\n\n* a\n* b") == ""
    assert docs_summary("Build the field with the choices like so::\n\n    * a\n") == ""
    assert docs_summary("A form takes these fields:\n\n| a | b |\n") == ""


def test_descriptions_from_the_docs_are_only_taken_where_they_surely_describe_the_api() -> None:
    from docmentor.library.knowledge.enrich import describe_from_docs

    def described(*docs: Doc) -> dict[str, str]:
        entries = [e.model_copy(update={"description": ""}) for e in ENTRIES]
        describe_from_docs(entries, list(docs), MentionResolver(entries), package="pkg")
        return {e.api_id: e.description for e in entries if e.description}

    # a directive's options are no description; its first paragraph of prose is
    assert described(Doc("API", ".. autoclass:: pkg.DigestAuth\n   :members:\n   :show-inheritance:\n")) == {}
    assert described(
        Doc("API", ".. autoclass:: pkg.DigestAuth\n   :members:\n\n   Digest it, the slow way.\n")
    ) == {"pkg._auth.DigestAuth": "Digest it, the slow way."}
    # a reST title in the section's text is no description
    assert described(Doc("Digest Auth", "Digest Auth\n-----------\n\nA challenge, then a response.")) == {
        "pkg._auth.DigestAuth": "A challenge, then a response."
    }
    # a heading naming two APIs, or an expression, or another package's name: nothing
    assert described(Doc("How `pkg.get` and `DigestAuth` meet", "They meet at the door.")) == {}
    assert described(Doc('`get="x"` (default)', "The default value, as it is.")) == {}
    assert described(Doc("Migrating from `requests.Response`", "A requests response holds it all.")) == {}
    # another package's directives, or the page's current module being another package's
    assert described(Doc("API", ".. class:: werkzeug.Response\n\n    Werkzeug's own response.\n")) == {}
    assert (
        described(Doc("API", ".. currentmodule:: werkzeug\n\n.. class:: Response\n\n    Werkzeug's.\n")) == {}
    )
    # a member inside a class directive is that class's, and only if the class is the library's
    nested = ".. class:: Client\n\n   .. method:: close()\n\n      Close the client for good.\n"
    assert described(Doc("API", nested)) == {"pkg._client.Client.close": "Close the client for good."}
    foreign = ".. class:: PoolLimits\n\n   .. method:: close()\n\n      Close the pool.\n"
    assert described(Doc("API", foreign)) == {}
    # nor in a code sample or a literal block
    fenced = "```rst\n.. function:: unique_helper()\n\n    TODO describe it here.\n```\n"
    literal = "For example::\n\n    .. function:: unique_helper()\n\n       TODO describe it here.\n"
    assert described(Doc("API", fenced), Doc("API", literal)) == {}
    # a short name under the page's current module (Sphinx's default domain: `.. class::`)
    short = ".. currentmodule:: pkg\n\n.. class:: get\n\n    Get it, from the module.\n"
    assert described(Doc("API", short)) == {"pkg._api.get": "Get it, from the module."}


@pytest.mark.timeout(60)  # a hang guard: quadratic (and cubic when nested) before
def test_directive_bodies_are_read_in_linear_time() -> None:
    from docmentor.library.knowledge.enrich import describe_from_docs

    many = "".join(f".. data:: x{i}\n   Body {i}.\n" for i in range(80_000))
    stairs = "".join(" " * i + f".. class:: C{i}\n" for i in range(4_000))
    entries = [e.model_copy(update={"description": ""}) for e in ENTRIES]
    assert (
        describe_from_docs(
            entries, [Doc("A", many), Doc("B", stairs)], MentionResolver(entries), package="pkg"
        )
        == 0
    )


def test_a_directive_signature_on_several_lines_is_no_description() -> None:
    from docmentor.library.knowledge.enrich import describe_from_docs

    entries = [e.model_copy(update={"description": ""}) for e in ENTRIES]
    by_id = {e.api_id: e for e in entries}
    text = (
        ".. class:: Client(*, auth=None, params=None, \\\n"
        "                  headers=None, timeout=5.0)\n"
        "   :noindex:\n\n"
        "   The client, as aiohttp documents its Application.\n\n"
        ".. function:: get(url)\n"
        "              get(url, params)\n\n"
        "   Fetch a page.\n"
    )
    assert describe_from_docs(entries, [Doc("Reference", text)], MentionResolver(entries), package="pkg") == 2
    assert by_id["pkg._client.Client"].description == "The client, as aiohttp documents its Application."
    assert by_id["pkg._api.get"].description == "Fetch a page."


def test_a_heading_that_spells_a_compound_name_documents_it() -> None:
    """A section under "ASGI Transport" is about `ASGITransport`, as under `` `ASGITransport` ``;
    a name of one word ("Clients", "Responses") is too common a heading to count."""
    entries = [
        *ENTRIES,
        api("pkg._t.ASGITransport", "class", "pkg.ASGITransport"),
        api("pkg._t.AsyncClient", "class", "pkg.AsyncClient"),
        api("pkg._t.AsyncClient.get", "method", parent="pkg._t.AsyncClient"),
        api("pkg._t.open_stream", "function", "pkg.open_stream"),
        api("pkg._t.HTTPTransport", "class", "pkg.HTTPTransport"),
        api("pkg._t.AsyncHTTPTransport", "class", "pkg.AsyncHTTPTransport"),
    ]
    r = MentionResolver(entries, [])
    credit = r.section_apis(
        Section("Call `AsyncClient.get`.", heading_path=["Transports", "ASGI Transport", "Example"])
    )
    assert credit == {"pkg._t.ASGITransport": DOCUMENTS, "pkg._t.AsyncClient.get": USES}
    assert r.spelled_by("Async clients") == {"pkg._t.AsyncClient"}  # a plural for the last word
    assert r.spelled_by("Opening streams") == set()  # not in the name's order and form
    assert r.spelled_by("Open stream") == {"pkg._t.open_stream"}
    assert r.spelled_by("Clients and responses") == set()  # one-word names: not from a heading
    assert r.spelled_by("Get") == set()  # nor a method's
    # a name inside a longer one the heading spells is not it
    assert r.spelled_by("Async HTTP Transport") == {"pkg._t.AsyncHTTPTransport"}
    assert r.spelled_by("HTTP Transport and ASGI Transport") == {
        "pkg._t.HTTPTransport",
        "pkg._t.ASGITransport",
    }


def test_a_one_word_class_is_spelled_by_its_plural() -> None:
    from docmentor.library.knowledge.enrich import _heading_key, _Spelled, _spelled_classes

    proxy = ApiEntry(api_id="pkg.Proxy", kind="class", name="Proxy")
    lock = ApiEntry(api_id="pkg.Lock", kind="class", name="Lock")
    spelled = _Spelled(_spelled_classes([proxy, lock]))
    assert spelled.find(_heading_key("Proxies")) == {"pkg.Proxy"}
    assert spelled.find(_heading_key("Locks")) == {"pkg.Lock"}
    assert (
        spelled.find(_heading_key("Lockers")) == set()
        and spelled.find(_heading_key("Proxy servers")) == set()
    )
    # a heading that is a run-together name spells it as its words would (a deepdiff tour:
    # `diff_doc.rst` is headed "DeepDiff", and `DeepDiff`'s docstring is set at import)
    deep = ApiEntry(api_id="pkg.DeepDiff", kind="class", name="DeepDiff")
    assert _Spelled(_spelled_classes([deep])).find(_heading_key("DeepDiff")) == {"pkg.DeepDiff"}
    assert _heading_key("HTTPTransport options") == ("http", "transport", "options")


def test_search_keywords_split_a_name_at_its_capitals() -> None:
    """(review) a regular expression added for docs_summary once took the name of the one
    that splits camelCase names: AsyncClient's keywords became `asyncclient`."""
    from docmentor.library.knowledge.enrich import _words

    assert {"async", "client", "http", "error"} <= set(_words("AsyncClient HTTPError"))


def test_a_directive_field_list_describes_the_parameters_its_docstring_does_not() -> None:
    """(a PyJWT tour) a hand-written ``.. function:: encode(...)`` body says what each
    parameter is in a field list, typed (``:param json.JSONEncoder json_encoder:``, ``:param
    Union[str, Iterable] audience:``), one field's description going on over a blank line
    into a list: the parameters the docstring leaves undescribed get those words, one it
    describes keeps its own, and none of the fields is prose (``docs_text``)."""
    from docmentor.library.knowledge.enrich import describe_from_docs
    from docmentor.library.models import ApiParameter, ApiReturn

    encode = api("pkg._api.encode", "function", "pkg.encode").model_copy(
        update={
            "description": "",
            "parameters": [
                ApiParameter(name="payload"),
                ApiParameter(name="key"),
                ApiParameter(name="json_encoder"),
                ApiParameter(name="audience", description="Its own words."),
            ],
            "returns": ApiReturn(type="str"),
        }
    )
    page = Doc(
        "API",
        ".. function:: pkg.encode(payload, key, json_encoder=None, audience=None)\n\n"
        "    Encode the ``payload`` as a token.\n\n"
        "    :param dict payload: the claims to sign\n"
        "    :param str key: a key suitable for the algorithm:\n\n"
        "        * a PEM private key for asymmetric ones\n"
        "        * a plain string for symmetric ones\n\n"
        "    :param json.JSONEncoder json_encoder: custom JSON encoder\n"
        "    :param Union[str, Iterable] audience: the expected audience\n"
        "    :rtype: str\n"
        "    :returns: a JSON Web Token\n\n"
        "    Tokens are compact.\n",
    )
    entries = [encode]
    assert describe_from_docs(entries, [page], MentionResolver(entries), package="pkg") == 1
    described = {p.name: p.description for p in encode.parameters}
    assert described["payload"] == "the claims to sign"
    assert described["key"].startswith("a key suitable for the algorithm:")
    assert "a PEM private key" in described["key"]
    assert described["json_encoder"] == "custom JSON encoder"
    assert described["audience"] == "Its own words."
    assert encode.returns is not None and encode.returns.description == "a JSON Web Token"
    assert encode.description == "Encode the ``payload`` as a token."
    assert encode.docs_text == "Encode the ``payload`` as a token.\nTokens are compact."
    # (review) a field list of one field describes too
    alone = encode.model_copy(update={"parameters": [ApiParameter(name="payload")], "returns": ApiReturn()})
    one = Doc("API", ".. function:: pkg.encode(payload)\n\n    :param dict payload: the claims to sign\n")
    describe_from_docs([alone], [one], MentionResolver([alone]), package="pkg")
    assert alone.parameters[0].description == "the claims to sign"


def test_stacked_bodiless_directives_share_the_body_under_the_last() -> None:
    """(a psutil tour) ``.. data:: STATUS_RUNNING`` … ``.. data:: STATUS_ZOMBIE (Linux)``
    stacked with nothing between them, one body under the last: it describes each, as the
    page reads. A blank line between heads (trio's bodiless ``current_kqueue()`` before
    ``wait_kevent``), a label, another kind, an autodoc directive or a directive with its
    own body does not stack."""
    from docmentor.library.knowledge.enrich import describe_from_docs

    names = ["RUNNING", "SLEEPING", "ZOMBIE", "LABELLED", "ALONE", "OWN", "AUTO_A", "AUTO_B", "Fetcher"]
    names += ["APART", "NEXT"]
    entries = [
        ApiEntry(api_id=f"pkg.{n}", kind="class" if n == "Fetcher" else "attribute", name=n) for n in names
    ]
    text = (
        ".. data:: RUNNING\n.. data:: SLEEPING\n.. data:: ZOMBIE (Linux)\n\n"
        "   Represent a process status.\n\n"
        ".. data:: ALONE\n.. _label:\n.. data:: LABELLED\n\n   A labelled constant.\n\n"
        ".. data:: APART\n\n.. data:: NEXT\n\n   Words of the next one.\n\n"
        ".. data:: OWN\n\n   Its own words.\n\n.. class:: Fetcher\n\n   A class of things.\n\n"
        ".. autodata:: AUTO_A\n.. autodata:: AUTO_B\n\n   Only B's words.\n"
    )
    assert describe_from_docs(entries, [Doc("Constants", text)], MentionResolver(entries), package="pkg") == 8
    said = {e.name: e.description for e in entries}
    assert said["RUNNING"] == said["SLEEPING"] == said["ZOMBIE"] == "Represent a process status."
    assert said["ALONE"] == "" and said["LABELLED"] == "A labelled constant."
    assert said["APART"] == "" and said["NEXT"] == "Words of the next one."
    assert said["OWN"] == "Its own words." and said["Fetcher"] == "A class of things."
    assert said["AUTO_A"] == "" and said["AUTO_B"] == "Only B's words."


def test_a_member_directive_finds_its_class_by_the_current_module_when_the_name_is_ambiguous() -> None:
    """(a peewee tour) ``.. py:class:: Model`` with its ``.. py:classmethod:: get`` inside,
    on a page whose module is the package: ``Database`` has a ``Model`` property too, so the
    short name alone is two APIs; the module's own ``Model`` is the class meant."""
    from docmentor.library.knowledge.enrich import describe_from_docs

    entries = [
        ApiEntry(api_id="pkg.Model", kind="class", name="Model"),
        ApiEntry(api_id="pkg.Model.get", kind="method", name="get", parent="pkg.Model"),
        ApiEntry(api_id="pkg.Database", kind="class", name="Database"),
        ApiEntry(api_id="pkg.Database.Model", kind="property", name="Model", parent="pkg.Database"),
    ]
    text = (
        ".. py:class:: Model\n\n    .. py:classmethod:: get(*query)\n\n        Fetch one row of the table.\n"
    )
    assert describe_from_docs(entries, [Doc("Model", text)], MentionResolver(entries), package="pkg") == 1
    assert entries[1].description == "Fetch one row of the table."
