"""The knowledge-base records: the API catalog (:class:`ApiEntry`) and examples (:class:`Example`).

pydantic models, validated when written and when loaded.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ApiParameter(_Model):
    name: str
    type: str | None = None  # annotation as written in the source, e.g. "str | None"
    default: str | None = None  # the default's source text; None when required
    required: bool = True
    kind: Literal[
        "positional-only", "positional or keyword", "var-positional", "keyword-only", "var-keyword"
    ] = "positional or keyword"
    description: str = ""


class ApiReturn(_Model):
    type: str | None = None
    description: str = ""
    class_id: str | None = None  # api_id of the public class `type` names (Optional/X | None unwrapped)
    # api_id of the public class whose instances an iterator, generator, context manager or
    # sequence `type` gives (`Iterator[Response]`, `Generator[Row, None, None]`, `list[Table]`)
    item_class_id: str | None = None


class ApiEntry(_Model):
    """One public API object: a function, class, method, property or attribute."""

    api_id: str  # fully qualified name where the object is DEFINED, e.g. "httpx._client.Client.get"
    aliases: list[str] = Field(default_factory=list)  # public import paths, e.g. ["httpx.Client.get"]
    kind: Literal["function", "class", "method", "property", "attribute", "module"]
    name: str  # the short name, e.g. "get"
    parent: str | None = None  # api_id of the enclosing class, for methods and properties
    signature: str = (
        ""  # e.g. "get(self, url: URL | str, *, params: QueryParamTypes | None = None) -> Response"
    )
    parameters: list[ApiParameter] = Field(default_factory=list)
    returns: ApiReturn | None = None
    description: str = ""  # the docstring's summary (first paragraph)
    docstring: str = ""  # the whole docstring
    # what the docs' API directives say of it besides its docstring, one paragraph a line (a
    # hand-written body under `.. autoclass:: LFUCache` or `.. function:: wait_readable`):
    # find_api reads it with the docstring
    docs_text: str = ""
    # for an exception class: what the library's code says of it, one line each: which of
    # its functions raise it, with what message, and the message its own __init__ builds
    # (surface/raise_sites.py); find_api reads it with the docstring
    raised: str = ""
    bases: list[str] = Field(default_factory=list)  # for classes: base classes as written
    # for classes: its instances may have members it does not list (it defines __getattr__,
    # or is a Protocol: a minimum that implementations exceed); drift never calls one missing
    open_members: bool = False
    # for Python classes: it declares abstract methods no class on its way implements (users
    # get one from the library or subclass it: never `Cls()`), or it is an exception
    abstract: bool = False
    exception: bool = False
    # for Python classes: an enumeration (a class of the standard library's ``enum``): users
    # pass its members (``Policy.WARN``), never call it to make one
    enum: bool = False
    # a Python property: whether it has a setter (`Client.timeout = …`); None: not known
    # (another kind, another language, a knowledge base from before it was recorded)
    writable: bool | None = None
    language: str = "python"
    source_file: str | None = None
    line: int | None = None
    # the source line of the docstring's first line, as ``docstring`` holds it (None: not known)
    docstring_line: int | None = None
    # a class's ``__init__`` docstring when the class has a docstring of its own (mkdocstrings'
    # merge_init_into_class shows both: its examples are the class's), and its first line
    init_docstring: str = ""
    init_docstring_line: int | None = None
    # the @typing.overload signatures of a function or method whose own parameters are not
    # annotated (cattrs' register_structure_hook_factory): what it is called with, typed
    overloads: list[str] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)  # example_ids that use it
    importance_score: float = 0.0
    importance_factors: dict[str, float] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list)
    related_apis: list[str] = Field(default_factory=list)
    search_keywords: list[str] = Field(default_factory=list)
    deprecated: str | None = None  # why, when the library marks it deprecated (decorator, docstring, warning)
    # no API users call, and why (the surface decides, ranking and README.LLM weigh it less):
    # "helper" / "constant": a module-level function / value that no __all__, re-export or
    # docs directive makes public; "marker": a class with no public members nor parameters
    # (a sentinel, an action marker); "sentinel": a module value that is `object()` or a bare
    # instance of a marker class, or a class that is its own value (its metaclass is one of its
    # bases: h11's `CLIENT`); "type variable": a TypeVar/ParamSpec; "said internal": a
    # class whose docstring says it is not for users ("not meant for general use"); "other
    # platform": what another branch of a platform or version `if` binds, and its members
    # (api_python_platform: pySerial's `serialwin32.Serial` on Linux); None: an API
    internal: str | None = None
    # an attribute assigned on self in its class's __init__: an instance's data, never called
    instance_attribute: bool = False
    # the docs' autodoc / mkdocstrings directives document it (by one of its paths): the docs
    # lead users to it even when the root package does not export it (find/priors.py)
    documented: bool = False
    # a module-level function a decorator made into an object with main/invoke (a CLI command,
    # `click.core.Command`): that object's class, and it is listed as an attribute with no
    # parameters; or one a decorator registers on a module-level application object that
    # runs it (`@app.command()`, typer): that object's class, the function as it is
    command: str | None = None
    # a method a module-level instance of its class binds (PyJWT's `encode =
    # _jwt_global_obj.encode`): its public paths that are those module-level names
    # (`jwt.encode`), called without self (the signature shows none): what users import it by
    bound_names: list[str] = Field(default_factory=list)
    # defined in another distribution, which the library's __init__ re-exports explicitly
    # (typer's `from click.utils import echo as echo`): the library's API by its alias; the
    # defining package is no package of the library's
    foreign: bool = False


class ExecutionContext(_Model):
    works_on_version: str | None = None
    validated_at: str | None = None
    error: str | None = None


class Example(_Model):
    """One code example from the docs, matched to the APIs it uses."""

    example_id: str
    title: str
    code: str
    language: str
    source: str  # the indexed source name
    path: str  # the document path within the source
    line: int  # 1-based line of the opening fence in the original file
    # the line of the code's first line when it is not the one after ``line`` (a reST
    # directive's options and blank line come between); None: the next line
    code_line: int | None = None
    # the page line of each code line when they do not follow each other (an include inside
    # the block, or the whole block included: its lines are the directive's); None otherwise
    code_lines: list[int] | None = None
    heading_path: list[str] = Field(default_factory=list)  # enclosing headings, outermost first
    tabs: list[str] = Field(default_factory=list)  # enclosing content tabs (=== "Async API")
    apis_used: list[str] = Field(default_factory=list)  # api_ids
    complete: bool = False  # a whole program (imports what it uses) rather than a snippet
    use_case: str = ""
    complexity: Literal["beginner", "intermediate", "advanced"] = "beginner"
    tags: list[str] = Field(default_factory=list)
    prerequisites: list[str] = Field(default_factory=list)  # e.g. ["pip install lancedb"]
    expected_output: str | None = None
    context: str = ""  # the prose of the example's section (code removed), for finding APIs by task
    validated: bool | None = None  # None: not run; True/False: ran with --validate
    # what the installed version does not support in it (drift: missing APIs, keywords the
    # real signature refuses), one message each; such an example is no model to copy
    drift: list[str] = Field(default_factory=list)
    execution_context: ExecutionContext = Field(default_factory=ExecutionContext)
    # "docs": a code block of the documentation; "docstring": one of the API's own docstring
    # (shown, never counted as evidence of what users call: library/examples/docstring_examples.py)
    origin: Literal["docs", "docstring"] = "docs"
    # sphinx.ext.doctest's group of a docs page's ``testcode`` or ``doctest`` block ("default"
    # when the directive names none): Sphinx runs the group's blocks after its set-up, in one
    # namespace (``--validate`` too); None for any other block
    doctest_group: str | None = None

    def page_line(self, offset: int) -> int:
        """The page line of the code's line ``offset`` (0-based), as a reader finds it."""
        if self.code_lines:
            return self.code_lines[min(max(offset, 0), len(self.code_lines) - 1)]
        return (self.code_line or self.line + 1) + offset
