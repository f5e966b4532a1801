"""``generate``: README.LLM and the knowledge base, from docs and the real API.

:func:`generate` runs the whole pipeline — index the docs, introspect the installed API,
extract the docs' examples and match them to APIs, score importance, optionally run the
examples (``validate``) and report drift, then write ``README.LLM`` and/or
``knowledge_base/`` and register the knowledge base in the index, so the MCP server and
``docmentor api`` serve it at once. The stages are in :mod:`~docmentor.library.stages`
(their work lives in the sub-packages of :mod:`docmentor.library`); this module runs them
in order.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import UsageError
from docmentor.library.stages import (
    OUTPUT_FORMATS,
    Readme,
    Request,
    Run,
    check_arguments,
    docs_source_for,
    docstring_stage,
    embed_apis,
    given_docs_folder,
    index_docs_stage,
    library_purpose,
    mark_drift,
    match_stage,
    rank,
    read_api,
    validate_stage,
    write_knowledge_base,
    write_readme,
)
from docmentor.library.token_cache import TokenCacheAhead

if TYPE_CHECKING:
    from docmentor.engine import Docmentor

__all__ = ["OUTPUT_FORMATS", "GenerationResult", "generate"]


@dataclass(frozen=True)
class GenerationResult:
    """What one generation wrote and found."""

    library: str
    version: str | None
    docs_source: str | None
    readme_path: Path | None
    kb_path: Path | None
    api_count: int
    example_count: int  # the docs' examples
    matched_examples: int
    readme_sections: int
    readme_tokens: int | None
    languages: list[str]
    generation: int | None  # the knowledge base's registration generation in the index
    validation: dict[str, Any] | None
    drift: dict[str, int] | None
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    docs_warnings: list[str] = field(default_factory=list)  # every one of the docs' indexing
    docstring_examples: int = 0  # examples from the APIs' own docstrings (shown, not counted)

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "version": self.version,
            "docs_source": self.docs_source,
            "readme_path": str(self.readme_path) if self.readme_path else None,
            "kb_path": str(self.kb_path) if self.kb_path else None,
            "api_count": self.api_count,
            "example_count": self.example_count,
            "matched_examples": self.matched_examples,
            "docstring_examples": self.docstring_examples,
            "readme_sections": self.readme_sections,
            "readme_tokens": self.readme_tokens,
            "languages": self.languages,
            "generation": self.generation,
            "validation": self.validation,
            "drift": self.drift,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "warnings": self.warnings,
            "docs_warnings": self.docs_warnings,
        }


def _check_out(out: Path) -> None:
    """Refuse to overwrite what generation did not write (``--out`` pointed at the wrong place)."""
    if out.exists() and not out.is_dir():
        raise UsageError(
            f"out {out} is a file",
            hint="give a folder for README.LLM and knowledge_base/",
            arguments=("out",),
        )
    kb = out / "knowledge_base"
    if kb.is_dir() and any(kb.iterdir()) and not (kb / "index.json").is_file():
        raise UsageError(
            f"{kb} holds files that are not a docmentor knowledge base",
            hint="choose another out folder",
            arguments=("out",),
        )
    readme = out / "README.LLM"
    if readme.is_file():
        try:
            head = readme.read_text(encoding="utf-8", errors="replace")[:200].lstrip()
        except OSError:
            head = ""
        if not head.startswith("<ReadMe.LLM>"):
            raise UsageError(
                f"{readme} was not written by docmentor", hint="choose another out folder", arguments=("out",)
            )


def generate(
    engine: Docmentor,
    *,
    library: str,
    docs_path: Path | str | None = None,
    source: Path | str | None = None,
    python: str | None = None,
    version: str | None = None,
    languages: Sequence[str] | None = None,
    output_format: str = "both",
    out: Path | str,
    max_apis: int = 50,
    max_tokens: int | None = None,
    encoding: str = "o200k_base",
    validate: bool = False,
    validate_timeout: float = 20.0,
    search_paths: Sequence[Path] | None = None,
    embeddings: bool = True,
    progress: Callable[[int, int, str], None] | None = None,
    base_paths: Sequence[Path | str] = (),
) -> GenerationResult:
    """Generate README.LLM and/or the knowledge base of ``library`` and register it.

    Args:
        engine: the index; the docs are indexed into it as the source ``<library>-docs``.
        library: the Python import name (or the name of the ``source`` library).
        docs_path: the documentation folder; when None, the already indexed
            ``<library>-docs`` source is used (if any). Inside a MkDocs project, snippet
            includes resolve from the project's ``base_path`` settings.
        source: a TypeScript/JavaScript, Go or Rust source folder to read the API from.
        python: the interpreter of the environment the library is installed in.
        version: overrides the detected version.
        languages: the example languages to use; None: every supported language.
        output_format: ``monolithic`` (README.LLM), ``knowledge_base`` or ``both``.
        out: the output folder (``out/README.LLM``, ``out/knowledge_base/``).
        max_apis: README.LLM sections at most.
        max_tokens: README.LLM token budget (exact count in ``encoding``).
        encoding: tokenizer for ``max_tokens``.
        validate: run the complete Python examples; README.LLM then shows only passed ones.
        validate_timeout: seconds per example when validating.
        search_paths: extra folders to find the Python package in (before ``sys.path``).
        embeddings: embed every API (all-MiniLM-L6-v2, offline) for ``find_api``'s
            semantic ranking; without, ``find_api`` ranks lexically only. An engine that
            embeds nothing (``Docmentor(embeddings=False)``, ``DOCMENTOR_EMBEDDINGS=0``) embeds
            no API either.
        progress: called with (done, total, step) as the work goes: ``reading the API``,
            ``indexing the docs``, ``matching examples``, ``embedding APIs`` (per text),
            ``validating examples`` (per example), ``writing outputs``.
        base_paths: extra folders the docs' includes may read from (``{include}
            ../README.md``: the project's root), as ``docmentor add --base-path``.

    Raises:
        NotFoundError: the library is not installed (or ``source`` has no API).
        UsageError: a bad option.
    """
    wanted = check_arguments(
        library,
        output_format=output_format,
        max_apis=max_apis,
        max_tokens=max_tokens,
        encoding=encoding,
        base_paths=base_paths,
        languages=languages,
    )
    out = Path(out)
    _check_out(out)
    req = Request(
        library=library,
        docs_path=given_docs_folder(docs_path),
        source=source,
        python=python,
        version=version,
        languages=wanted,
        output_format=output_format,
        out=out,
        max_apis=max_apis,
        max_tokens=max_tokens,
        encoding=encoding,
        validate=validate,
        validate_timeout=validate_timeout,
        search_paths=search_paths,
        base_paths=base_paths,
    )
    run = Run(progress)
    # README.LLM's exact token count: its vocabulary file, when missing, is derived in a child
    # process now and waited for before the embedding model loads (library/token_cache.py)
    ahead = TokenCacheAhead.start(encoding) if output_format in ("monolithic", "both") else None
    try:
        return _run_stages(engine, req, run, ahead, embeddings=embeddings)
    finally:
        if ahead is not None:
            ahead.cancel()  # still running only when a stage failed


def _run_stages(
    engine: Docmentor, req: Request, run: Run, ahead: TokenCacheAhead | None, *, embeddings: bool
) -> GenerationResult:
    library, version, output_format = req.library, req.version, req.output_format
    with run.timed("api"):  # 1. what is really installed (fails early, before anything is written)
        api = read_api(engine, req, run)
    version = version or api.version
    with run.timed("docs"):  # 2. the docs, indexed by the engine (includes resolved)
        # one docs source per registered version: another version's stays as it is
        docs_name = docs_source_for(engine, library, version)
        docs_source, docs_warnings = index_docs_stage(engine, req, run, docs_name)
    with run.timed("examples"):  # 3. examples, matched to APIs
        found = match_stage(engine, req, api, docs_source, run)
    with run.timed("importance"):  # 4. importance, descriptions, related APIs
        rank(api, found)
    if ahead is not None and ahead.running:
        with run.timed("token_cache"):  # the child's rest, before the model loads beside it
            ahead.finish()
    with run.timed("embeddings"):  # 4b. for find_api's semantic ranking
        vectors = (
            embed_apis(api.entries, found.examples, run.warnings, run.step)
            if embeddings and engine.embeddings and api.entries  # DOCMENTOR_EMBEDDINGS=0 too
            else None
        )
    with run.timed("docstring_examples"):  # 4c. the docstrings' own examples (shown, not counted)
        from_docstrings = docstring_stage(req, api, found, run)
    docs_examples = [ex for ex in found.examples if ex.origin == "docs"]
    with run.timed("validation"):  # 5. validation and drift
        validation = (
            validate_stage(req, api, found.examples, version, run, found.context) if req.validate else None
        )
    with run.timed("drift"):
        # the docs' examples: a docstring's example is the installed version's own
        drift = mark_drift(
            docs_examples, api.surfaces, library=library, version=version, context=found.context
        )
    shown = [ex for ex in found.examples if not ex.drift]
    with run.timed("readme"):  # 6. outputs
        run.step("writing outputs")
        purpose = library_purpose(library, api, found.sections)
        readme = (
            write_readme(req, api, shown, version, purpose, found.sections)
            if output_format in ("monolithic", "both")
            else Readme()
        )
        if readme.path is not None and not readme.sections and api.entries and req.max_apis:
            run.warnings.append(  # asked for none (--max-apis 0): no warning
                f"README.LLM holds no API: its {readme.tokens} tokens of rules and description fill "
                f"--max-tokens {req.max_tokens}: give more, or leave it out"
            )
    kb_path: Path | None = None
    generation: int | None = None
    if output_format in ("knowledge_base", "both"):
        with run.timed("knowledge_base"):
            kb_path, generation = write_knowledge_base(
                engine,
                req,
                api=api,
                found=found,
                shown=shown,
                version=version,
                purpose=purpose,
                docs_source=docs_source,
                validation=validation,
                drift=drift,
                readme=readme,
                vectors=vectors,
                timings=run.timings,
            )
    run.step("writing outputs", 1)
    run.timings["total"] = time.perf_counter() - run.start
    return GenerationResult(
        library=library,
        version=version,
        docs_source=docs_source,
        readme_path=readme.path,
        kb_path=kb_path,
        api_count=len(api.entries),
        example_count=len(docs_examples),
        matched_examples=sum(1 for ex in docs_examples if ex.apis_used),
        readme_sections=readme.sections,
        readme_tokens=readme.tokens,
        languages=found.languages,
        generation=generation,
        validation=validation,
        drift={
            **drift["counts"],
            "examples_checked": drift["examples_checked"],
            "examples_not_checked": drift["examples_not_checked"],
        }
        if drift
        else None,
        timings=run.timings,
        warnings=run.warnings,
        docs_warnings=docs_warnings,
        docstring_examples=from_docstrings,
    )
