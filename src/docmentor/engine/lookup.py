"""Reading the index: the source listing, search (by words, blended with meaning),
assembly's candidates, and a document found by reference, paged or excerpted."""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from docmentor.config import MAX_RESULTS, is_url
from docmentor.engine.embedding import Embedding
from docmentor.engine.reports import DocExcerpts, DocPage, SourceInfo, source_info
from docmentor.engine.scope import VersionScope, version_scope
from docmentor.errors import DocmentorError, NotFoundError, UsageError
from docmentor.models import SearchHit
from docmentor.parse.common import LABEL_LINE, mkdocs_numbered, slugify
from docmentor.search.analyzer import analyze_query, compound_terms, identifiers_only
from docmentor.search.config import RankingConfig
from docmentor.search.lexical import LexicalSearch
from docmentor.search.ranking import excerpts, rank_hits
from docmentor.search.semantic import counts, vector_model
from docmentor.store.docs import documents_by_path
from docmentor.store.rows import StoredDoc

_LEADING_DIRS = re.compile(r"^(?:\.{1,2}/|/)+")

#: ``excerpt``'s ranges (lowest, highest), a value outside clamped: passages, and characters
#: around a match
EXCERPT_CHUNKS_RANGE = (1, 20)
EXCERPT_CONTEXT_RANGE = (50, 5000)


class Lookup(Embedding):
    """Lists, searches and reads what the index holds (see :class:`Docmentor`)."""

    #: the project whose requirements choose which indexed version of a library answers when
    #: several are indexed and none is asked for (None: the working folder, read at each call)
    project: Path | None = None

    def version_scope(self, source: str | None = None, version: str | None = None) -> VersionScope:
        """Which sources a read with ``source`` (a source's name, or a library's: every version
        of it) and ``version`` covers, and why each version was chosen (asked, pinned by the
        project's requirements, newest). :class:`NotFoundError` for an unknown source, or a
        version nobody indexed (the hint lists the indexed versions)."""
        return version_scope(
            self.store.source_versions(), source=source, version=version, project=self.project
        )

    def sources(self) -> list[SourceInfo]:
        """Every source, with how many of its search units are embedded."""
        from docmentor.embeddings import MODEL_ID

        per_source = counts(self.store, vector_model(MODEL_ID, self.ranking.embed_tokens))
        return [source_info(r, *per_source.get(r.name, (0, 0))) for r in self.store.sources()]

    def query_terms(
        self, query: str, index: LexicalSearch | None = None, ranking: RankingConfig | None = None
    ) -> list[tuple[str, float]]:
        """The analysed query with the ranking config's weights."""
        index = index if index is not None else self._lexical_to_read()
        r = ranking or self.ranking
        held = index.holding(compound_terms(query)) if index is not None else None
        return analyze_query(
            query,
            held.__contains__ if held is not None else None,
            whole_weight=r.whole_weight,
            part_weight=r.part_weight,
            joined_weight=r.joined_weight,
        )

    def search(
        self,
        query: str,
        *,
        source: str | None = None,
        version: str | None = None,
        limit: int = 10,
        per_document: int | None = None,
        snippets: bool = True,
        pool: int | None = None,
        semantic: bool = True,
        ranking: RankingConfig | None = None,
    ) -> list[SearchHit]:
        """Rank sections for a query. Any string is accepted; an empty list when nothing matches.

        ``snippets=False``: results without their ``snippet``; ``pool``: how many of the best
        sections are read before de-duplication and the per-document cap pick ``limit`` of
        them (default ``4 × limit``, at least the config's ``lexical_pool``). Both for callers
        that only need which sections match, fast (find_api's section ranking).
        ``semantic=False``: by words only, even where sections are embedded. ``ranking``:
        other query-time constants than the engine's (the index shape stays the engine's).
        ``source``: a source, or a library (every version of it); ``version``: only that
        version of it (of every library without ``source``). Where several versions of a
        library are indexed and none is asked for, the project's pinned one answers, else the
        newest (:meth:`version_scope`); each hit says its ``source_version`` and why."""
        limit = min(_whole_limit(limit), MAX_RESULTS)
        scope = self.version_scope(source, version)
        within = scope.sources
        r = ranking or self.ranking
        if r.history_weight != 1.0 and identifiers_only(query):
            # a query made only of code names asks where the name is written: a changelog that
            # names it (anyio's `abandon_on_cancel`) is as good an answer as a guide
            r = dataclasses.replace(r, history_weight=1.0)

        def run(index: LexicalSearch | None, check: bool) -> list[SearchHit]:
            terms = self.query_terms(query, index, r)
            if not terms or index is None:
                return []
            doc_scores: dict[int, float] = {}
            hits = index.search(
                terms,
                source=within,
                limit=max(limit, pool) if pool else max(limit * 4, r.lexical_pool),
                doc_scores=doc_scores,
                config=r,
            )
            if check:
                hits = self._live(hits)
            blended = (
                self._hybrid(
                    index, query, hits, doc_scores, source=within, check=check, terms=terms, ranking=r
                )
                if semantic
                else None
            )
            return rank_hits(
                blended if blended is not None else hits,
                terms,
                limit=limit,
                per_document=per_document if per_document is not None else r.per_document,
                versions=scope.versions,
                snippets=snippets,
                config=r,
                fused=blended is not None,
                reasons=scope.reasons,
            )

        return self._marked_stale(self._read_lexical(run))

    def _marked_stale(self, hits: list[SearchHit]) -> list[SearchHit]:
        """The hits, those of documents gone from their origin (kept stale until a prune)
        marked ``stale``: an agent is told the text may no longer be true."""
        stale = self.store.stale_documents([h.document_id for h in hits]) if hits else set()
        return [dataclasses.replace(h, stale=True) if h.document_id in stale else h for h in hits]

    def candidates(
        self,
        query: str,
        *,
        source: str | None = None,
        version: str | None = None,
        limit: int = 200,
        snippets: bool = True,
    ) -> list[SearchHit]:
        """Every section matching a query, best first, with no per-document cap (for assembly).

        The same analyzer, index, scoring and choice of versions as :meth:`search`.
        ``snippets=False``: each hit's ``snippet`` is left empty (assembly reads the sections'
        texts; choosing a window of each of ~200 hits was a sixth of its time).
        """
        limit = _whole_limit(limit)
        scope = self.version_scope(source, version)
        within = scope.sources

        def run(index: LexicalSearch | None, check: bool) -> list[SearchHit]:
            terms = self.query_terms(query, index)
            if not terms or index is None:
                return []
            doc_scores: dict[int, float] = {}
            hits = index.search(terms, source=within, limit=max(1, min(limit, 1000)), doc_scores=doc_scores)
            if check:
                hits = self._live(hits)
            blended = self._hybrid(index, query, hits, doc_scores, source=within, check=check, terms=terms)
            ranked = blended if blended is not None else hits
            return rank_hits(
                ranked,
                terms,
                limit=len(ranked),
                per_document=len(ranked),
                versions=scope.versions,
                snippets=snippets,
                config=self.ranking,
                collapse=False,
                fused=blended is not None,
                reasons=scope.reasons,
            )

        return self._marked_stale(self._read_lexical(run))

    def find(self, ref: str, *, source: str | None = None) -> Any:
        """The stored document a reference names (URL, ``source:path``, path or absolute file).
        ``source`` may name a library with several versions indexed: the one that answers
        searches (:meth:`version_scope`). A path without a file extension, as Docusaurus
        and MkDocs sites link their pages (``api/createApi``), is also read as its page
        (``.md``, ``.mdx``, ``.rst``, then the folder's ``index``)."""
        try:
            return self._find(ref, source=source)
        except NotFoundError:
            page = _cited_page(ref.strip())
            if page is not None:  # `docs/clients.md:187`, `httpx:docs/clients.md:12-30`: a citation's page
                try:
                    return self._find(page, source=source)
                except NotInThisVersion:
                    raise  # the cited page is in another version: said so, not "no document"
                except NotFoundError:
                    pass
            bare = ref.strip().rstrip("/")
            last = bare.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
            if not last or "." in last or is_url(bare) or bare.startswith("file://"):
                raise
            for suffix in _PAGE_SUFFIXES:
                try:
                    return self._find(bare + suffix, source=source)
                except NotFoundError:
                    continue
            # a site-absolute link (`/docs/server/context`): the site's route, under a base
            # path the docs folder does not have: its page's path is the route's end
            named, _, route = bare.rpartition(":") if not bare.startswith("/") else ("", "", bare)
            if route.startswith("/"):
                within = named or source
                found = (
                    self._routed(route, within)
                    or self._in_docs_folder(route, within)
                    or self._slugged(route, within)
                    or self._route_tail(route, within)
                )
                if found is not None:
                    return found
            raise

    def _find(self, ref: str, *, source: str | None = None) -> Any:
        if source is not None and (not self.store.has_source(source) or "@" not in source):
            # a library (every version of it, one source named as the library among them):
            # the version a search would answer from, asked or pinned or the newest
            names = self.version_scope(source).names() or []
            source = names[0] if len(names) == 1 else source
        self._known_source(source)
        ref = ref.strip()
        st = self.store
        doc = None

        paths = _path_forms

        def in_source(name: str, p: str) -> StoredDoc | None:
            found = next((d for d in (st.find_document(source=name, path=c) for c in paths(p)) if d), None)
            return found if found is not None else self._by_tail(name, p)

        if source is not None:
            doc = in_source(source, ref)
            if doc is None and (is_url(ref) or ref.startswith("file://")):
                doc = st.find_document(url=ref) or self._listed(ref, source)
        else:
            head, sep, rest = ref.partition(":")
            if sep and not rest.startswith("//") and st.has_source(head) and "@" in head:
                doc = in_source(head, rest)
            elif sep and not rest.startswith("//") and head and "/" not in head:
                chosen = self._library_source(head)  # LIBRARY:PATH, the version a search reads
                if chosen is not None:
                    doc = in_source(chosen, rest)
            if doc is None and (is_url(ref) or ref.startswith("file://")):
                doc = st.find_document(url=ref) or self._listed(ref)
            if doc is None and ref.startswith("/"):
                doc = st.find_document(url=Path(ref).resolve().as_uri())
            if doc is None and not is_url(ref) and _local_file(ref):
                # an indexed file named relative to the current folder (`../repo/docs/index.md`)
                doc = st.find_document(url=Path(ref).resolve().as_uri())
            if doc is None:
                # every source holding the reference in any of its forms: one, or ask which
                owners = [(o, c) for c in paths(ref) for o in st.sources_with_path(c)]
                owners = self._one_version(owners)
                if len({o for o, _ in owners}) > 1:
                    choices = ", ".join(f"{o}:{c}" for o, c in owners)
                    raise UsageError(
                        f"{ref!r} is in several sources",
                        hint=f"name one: {choices}",
                    )
                if owners:
                    doc = st.find_document(source=owners[0][0], path=owners[0][1])
        if doc is None:
            head, sep, rest = ref.partition(":")
            looks_named = (
                sep
                and head
                and "/" not in head
                and ("." not in head or "@" in head)  # a.md:12 is a file and a line; httpx@0.27 a source
                and rest[:1] not in ("", "/", ":")  # C:/docs, std::vector, a URL
                and not rest.isdigit()
            )
            if source is None and looks_named:
                # SOURCE:PATH with a source (or library) this index does not have: say so, as
                # --source does
                self.version_scope(head)
                chosen = self._library_source(head)
                elsewhere = self._other_versions_of(head, chosen, rest) if chosen is not None else []
                if elsewhere:  # another version has it (an agent tour)
                    raise NotInThisVersion(
                        f"{rest!r} is not in {chosen}, the version of {head} read here",
                        hint=f"another version has it: {', '.join(elsewhere[:3])}",
                    )
            raise NotFoundError(
                f"no indexed document {ref!r}" + (f" in source {source!r}" if source else ""),
                hint="use a URL, or a path as search results show it (SOURCE:PATH, e.g. docs:guide/install.md)",
            )
        return doc

    def _other_versions_of(self, library: str, chosen: str, path: str) -> list[str]:
        """References to ``path`` in the other versions of ``library`` than ``chosen``: as
        ``NAME@VERSION:PATH``, or by URL for the version that kept the library's bare name
        (``LIB:PATH`` would read ``chosen`` again)."""
        from docmentor.sources.versions import library_of

        st = self.store
        found: list[str] = []
        for c in _path_forms(path):
            for o in st.sources_with_path(c):
                if o == chosen or library_of(o) != library_of(chosen):
                    continue
                if o != library:
                    found.append(f"{o}:{c}")
                elif (doc := st.find_document(source=o, path=c)) is not None:
                    found.append(doc.url)
        return list(dict.fromkeys(found))

    def _one_version(self, owners: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The sources holding a bare path, narrowed to the version a search answers from
        when they are all versions of one library (a digest cites ``advanced/timeouts.md:41``
        without its source: with 0.27 and 0.28 indexed, it was "in several sources")."""
        from docmentor.sources.versions import library_of

        libraries = {library_of(o) for o, _ in owners}
        if len({o for o, _ in owners}) < 2 or len(libraries) != 1:
            return owners
        chosen = self._library_source(libraries.pop())
        mine = [(o, c) for o, c in owners if o == chosen]
        return mine or owners

    def _library_source(self, name: str) -> str | None:
        """The one source a read of ``name`` (a source, or a library with several versions)
        answers from; None when ``name`` names neither, or the choice is not one source."""
        try:
            names = self.version_scope(name).names() or []
        except DocmentorError:
            return None
        return names[0] if len(names) == 1 else None

    def _routed(self, route: str, source: str | None) -> StoredDoc | None:
        """The page a site-absolute link names (``/docs/server/context``) under a base path the
        docs folder does not have: the route with its first parts left off, as an exact page
        path (with a page suffix), the longest that is one, in ``source`` or in the one source
        that holds it; None when none is."""
        parts = route.strip("/").split("/")
        for k in range(1, len(parts)):
            rest = "/".join(parts[k:])
            for suffix in ("", *_PAGE_SUFFIXES):
                path = rest + suffix
                if source is not None:
                    doc = self.store.find_document(source=source, path=path)
                else:
                    owners = self.store.sources_with_path(path)
                    doc = self.store.find_document(source=owners[0], path=path) if len(owners) == 1 else None
                if doc is not None:
                    return doc
        return None

    def _in_docs_folder(self, route: str, source: str | None) -> StoredDoc | None:
        """A route of a site built from one folder of the source (MkDocs' ``docs_dir: src``
        when the folder added holds ``mkdocs.yml``: ``/search/`` is ``src/search.md``): the one
        page whose path is a first folder, then the route (a page suffix added); None unless
        exactly one."""
        wanted = {route.strip("/") + suffix for suffix in _PAGE_SUFFIXES}
        return self._the_one_page(source, lambda path: "/" in path and path.split("/", 1)[1] in wanted)

    def _the_one_page(self, source: str | None, fits: Callable[[str], bool]) -> StoredDoc | None:
        """The one page of ``source`` (of every source when None) whose path ``fits``; None
        when none or several do."""
        names = [source] if source is not None else [row.name for row in self.store.sources()]
        found = [
            (name, row.path)
            for name in names
            for row in documents_by_path(self.store, name)
            if fits(row.path)
        ]
        if len(found) != 1:
            return None
        return self.store.find_document(source=found[0][0], path=found[0][1])

    def _route_tail(self, route: str, source: str | None) -> StoredDoc | None:
        """A site that leaves number prefixes (and folders) out of its routes (Docusaurus,
        SvelteKit's `20-core-concepts/10-routing.md` at `/docs/kit/routing`): the one page
        with number prefixes whose path, without them, ends with the route's last part (a
        page suffix added); None unless exactly one."""
        tails = tuple("/" + route.strip("/").rsplit("/", 1)[-1] + suffix for suffix in _PAGE_SUFFIXES)
        return self._the_one_page(
            source, lambda path: (plain := _unnumbered(path)) != path and ("/" + plain).endswith(tails)
        )

    def _slugged(self, route: str, source: str | None) -> StoredDoc | None:
        """The page whose front matter gives it the route's path (Docusaurus' ``slug:
        /server/context``, or a slug relative to the page's folder), under a base path the
        docs folder does not have; None when no page has. Reads every page's front matter:
        only a route nothing else names comes here."""
        parts = route.strip("/").split("/")
        ends = {"/" + "/".join(parts[k:]) for k in range(len(parts))}
        names = [source] if source is not None else [row.name for row in self.store.sources()]
        for name in names:
            for row in documents_by_path(self.store, name):
                slug = _front_matter_slug(self.store.content(row.id)[:_FRONT_MATTER_CHARS])
                if slug is None:
                    continue
                folder = row.path.rsplit("/", 1)[0] if "/" in row.path else ""
                full = slug if slug.startswith("/") else f"/{folder}/{slug}" if folder else f"/{slug}"
                if full.rstrip("/") in ends:
                    return self.store.find_document(source=name, path=row.path)
        return None

    def _by_tail(self, source: str, path: str) -> StoredDoc | None:
        """The one document of ``source`` whose path ends with ``path`` at a folder boundary
        (``customizing.md`` for an llms.txt source's ``/docs/customizing.md``); an error naming
        them when several do; None when none does."""
        bare = _LEADING_DIRS.sub("", path.strip())  # ./, ../ and /, not `.github/…`'s dot
        if not bare or is_url(bare):
            return None
        tail = "/" + bare
        rows = documents_by_path(self.store, source)
        matches = [row.path for row in rows if ("/" + row.path).endswith(tail)]
        if not matches and _unnumbered(bare) == bare:  # `routing.md` for `20-core-concepts/10-routing.md`
            tail = "/" + _unnumbered(bare)
            matches = [row.path for row in rows if ("/" + _unnumbered(row.path)).endswith(tail)]
        if len(matches) > 1:
            shown = ", ".join(f"{source}:{m}" for m in matches[:5])
            raise UsageError(f"{path!r} is the end of several paths in {source}", hint=f"name one: {shown}")
        return self.store.find_document(source=source, path=matches[0]) if matches else None

    def _listed(self, url: str, source: str | None = None) -> StoredDoc | None:
        """The document an llms.txt source lists at ``url`` when it was stored under another
        (the page redirected): its path is the listed URL's path, on the source's site."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.path:
            return None
        for row in self.store.sources():
            if row.kind != "llms_txt" or (source is not None and row.name != source):
                continue
            site = urlsplit(row.target)
            if (site.scheme, site.netloc) == (parts.scheme, parts.netloc):
                doc = self.store.find_document(source=row.name, path=parts.path)
                if doc is not None:
                    return doc
        return None

    def get(
        self,
        ref: str,
        *,
        source: str | None = None,
        offset: int = 0,
        limit: int = 50_000,
        lines: tuple[int, int] | None = None,
    ) -> DocPage:
        """A stored document (Markdown after includes), paginated by characters.

        ``lines=(start, end)`` first narrows it to the lines of the original file a search
        result points at (1-based, inclusive; included text counts as its directive's line).
        A reference with an anchor, as the docs link (``concepts/cache.md#clearing-the-cache``),
        narrows it to that section and its subsections, unless ``lines`` says otherwise.
        """
        if offset < 0:
            raise UsageError(f"offset must be at least 0, got {offset}", arguments=("offset",))
        if limit < 1:
            raise UsageError(f"limit must be at least 1, got {limit}", arguments=("limit",))
        if not ref.strip():
            raise UsageError(
                "empty document reference",
                hint="give a path as search results show it, SOURCE:PATH such as docs:guide/install.md, or a URL",
            )
        cited = _cited_lines(ref.strip()) if lines is None and not is_url(ref.strip()) else None
        with self.store.snapshot():  # the document, its text and line map from one state
            doc, anchor = self._find_anchored(ref, source)
            if anchor is not None and lines is None:
                lines = self._anchor_lines(doc, anchor)
            elif cited is not None:  # `docs/clients.md:12-30`: those lines; `:187`: its section
                lines = cited if cited[0] != cited[1] else self._section_at(doc, cited[0])
            text = self.store.content(doc.id)
            line_map = self.store.line_map(doc.id) if lines is not None else None
        whole = len(text)  # total_length: the document's, also when only some lines are asked for
        if lines is not None:
            start, end = lines
            if start < 1 or end < start:
                raise UsageError(f"bad line range {start}-{end}", hint="use START-END, 1-based, START <= END")
            numbered = [
                (line_map[i - 1] if line_map and i <= len(line_map) else i, ln)
                for i, ln in enumerate(text.removesuffix("\n").split("\n"), 1)
            ]
            last = max((n for n, _ in numbered), default=0)
            if start > last:
                raise UsageError(
                    f"lines {start}-{end}: {doc.path} has {last} lines", hint=f"ask for lines up to {last}"
                )
            text = "\n".join(ln for n, ln in numbered if start <= n <= end)
        if offset > len(text):
            what = "those lines" if lines is not None else doc.path
            raise UsageError(
                f"offset {offset} is past the end: {what} {'have' if lines is not None else 'has'} {len(text)} characters",
                hint=f"ask for an offset up to {len(text)}",
                arguments=("offset",),
            )
        part = text[offset : offset + limit]
        return DocPage(
            source=doc.source,
            path=doc.path,
            url=doc.url,
            title=doc.title,
            content=part,
            offset=offset,
            length=len(part),
            total_length=whole,
            has_more=offset + len(part) < len(text),
            stale=doc.stale,
            error=doc.error,
            indexed_at=doc.indexed_at,
            span_length=len(text),
            source_version=self.store.source_versions().get(doc.source),
            note=self._other_version_note(doc.source, source, ref, doc.path),
        )

    def _other_version_note(self, read: str, asked: str | None, ref: str, path: str) -> str | None:
        """A note when ``read`` is another version of its library than the one searches
        answer from, and nobody named that version (an agent tour: a 0.28-only page was
        served to a project pinned to 0.27 without a word)."""
        from docmentor.sources.versions import library_of

        if asked == read or ref.strip().startswith(f"{read}:"):
            return None  # the version was named
        library = library_of(read)
        if not any(n != read and library_of(n) == library for n in self.store.source_versions()):
            return None  # the library's only source: no version choice to read (every get)
        chosen = self._library_source(library)
        if chosen is None or chosen == read or self.store.find_document(source=chosen, path=path) is not None:
            return None  # the version searches answer from, or it has the page too (a URL named this one)
        return f"read from {read}: the page is not in {chosen}, the version of {library} searches answer from"

    def _find_anchored(self, ref: str, source: str | None) -> tuple[StoredDoc, str | None]:
        """:meth:`find`, and the anchor of a reference that ends with one (``page.md#usage``):
        the reference as given first (a path may hold ``#``), then without its anchor."""
        try:
            return self.find(ref, source=source), None
        except NotFoundError:
            base, sep, anchor = ref.strip().rpartition("#")
            if not sep or not base or not anchor or "/" in anchor:
                raise
            try:
                return self.find(base, source=source), anchor
            except NotInThisVersion:
                raise  # the page is in another version: said so, not "no document"
            except NotFoundError:
                pass
            raise

    def _anchor_lines(self, doc: StoredDoc, anchor: str) -> tuple[int, int]:
        """The original file's lines of the section an anchor names (its id or heading slug,
        as the page's links write it) with its subsections; an error listing the page's
        anchors when none is so named."""
        sections = self.store.sections_of(doc.id)
        # as written, or as another site generator writes it: Docusaurus' slugger keeps a dash
        # per space ("lifetime & subscription" → `lifetime--subscription`), MkDocs' one per run
        wanted = {_dashes(a) for a in (anchor, anchor.lower(), slugify(anchor))}
        numbered = mkdocs_numbered(anchor.lower())  # a repeated heading's `-1`, stored `_1`
        if numbered is not None:
            wanted.add(_dashes(numbered))
        at = next((k for k, row in enumerate(sections) if _dashes(str(row["anchor"])) in wanted), None)
        if at is None:
            # VitePress' slugger: each run of punctuation a dash (`server.fs.allow` →
            # `server-fs-allow`, where GitHub writes `serverfsallow`), `_` before a leading digit
            loose = _loose(anchor)
            at = next(
                (k for k, row in enumerate(sections) if loose and _loose(str(row["heading"])) == loose), None
            )
        if at is None:
            at = self._labelled(doc, sections, anchor)
        if at is None:
            known = [f"#{row['anchor']}" for row in sections if row["anchor"]]
            shown = ", ".join(known[:8]) + (", …" if len(known) > 8 else "")
            raise NotFoundError(
                f"no section #{anchor} in {doc.source}:{doc.path}",
                hint=f"its sections are {shown}; or ask for the page without the anchor"
                if known
                else "ask for the page without the anchor",
            )
        first = sections[at]
        end = int(first["line_end"])
        for row in sections[at + 1 :]:
            if int(row["level"]) <= int(first["level"]):
                break
            end = max(end, int(row["line_end"]))
        return int(first["line_start"]), end

    def _section_at(self, doc: StoredDoc, line: int) -> tuple[int, int]:
        """The lines of the innermost section holding ``line`` (a citation of one line, as
        get_examples writes an example's first line); the line alone when none holds it."""
        holding = [
            (int(r["line_start"]), int(r["line_end"]))
            for r in self.store.sections_of(doc.id)
            if int(r["line_start"]) <= line <= int(r["line_end"])
        ]
        return min(holding, key=lambda span: span[1] - span[0], default=(line, line))

    def _labelled(self, doc: StoredDoc, sections: Sequence[Any], anchor: str) -> int | None:
        """The section a label names (reST's ``.. _pool_disconnects_pessimistic:`` or MyST's
        ``(label)=`` above its heading; Sphinx's URLs write it with dashes): the first section
        starting at or after the label's line. A tour asked for a SQLAlchemy page by the label its docs link to."""
        key = _loose(anchor)
        content = self.store.content(doc.id)
        if not key or ((".." not in content or "_" not in content) and ")=" not in content):
            return None
        line_map = self.store.line_map(doc.id)
        for i, line in enumerate(content.split("\n")):
            label = LABEL_LINE.fullmatch(line)
            if label is not None and _loose(label.group(1) or label.group(2)) == key:
                at_line = line_map[i] if line_map and i < len(line_map) else i + 1
                return next((k for k, row in enumerate(sections) if int(row["line_start"]) >= at_line), None)
        return None

    def excerpt(
        self,
        ref: str,
        query: str,
        *,
        source: str | None = None,
        max_chunks: int = 5,
        context_chars: int = 500,
    ) -> DocExcerpts:
        """The passages of one document that best match a query. A reference with an anchor
        (``page.md#usage``) or a citation's lines (``page.md:12-30``) looks only in that part
        of the page, as :meth:`get` reads it."""
        cited = _cited_lines(ref.strip()) if not is_url(ref.strip()) else None
        if cited is not None and (cited[0] < 1 or cited[1] < cited[0]):  # as get says of them
            start, end = cited
            raise UsageError(f"bad line range {start}-{end}", hint="use START-END, 1-based, START <= END")
        with self.store.snapshot():
            doc, anchor = self._find_anchored(ref, source)
            sections = self.store.sections_of(doc.id)
            span = self._anchor_lines(doc, anchor) if anchor is not None else cited
            if span is not None:  # the sections overlapping that part (all when none does)
                part = [
                    r for r in sections if int(r["line_start"]) <= span[1] and int(r["line_end"]) >= span[0]
                ]
                sections = part or sections
            content, line_map = self.store.content(doc.id), self.store.line_map(doc.id)
        numbered = [  # each stored line with the original line it comes from (includes: their directive's)
            (line_map[i] if line_map and i < len(line_map) else i + 1, line)
            for i, line in enumerate(content.split("\n"))
        ]
        index = self._lexical_to_read()
        found = self._nearest(
            query, doc.source, 1, also=[int(s["id"]) for s in sections]
        )  # the units' cosines
        chunks = excerpts(
            sections,
            self.query_terms(query, index),
            max_chunks=max(EXCERPT_CHUNKS_RANGE[0], min(max_chunks, EXCERPT_CHUNKS_RANGE[1])),
            context_chars=max(EXCERPT_CONTEXT_RANGE[0], min(context_chars, EXCERPT_CONTEXT_RANGE[1])),
            cosine=found[1] if found is not None else None,
            config=self.ranking,
            document_lines=numbered,
            rest=doc.fmt == "rst",
        )
        out: DocExcerpts = {
            "source": doc.source,
            "path": doc.path,
            "url": doc.url,
            "title": doc.title,
            "query": query,
            "excerpts": chunks,
        }
        if doc.stale:  # its last good copy: an agent quoting it should know
            out["stale"], out["error"] = True, doc.error
        version = self.store.source_versions().get(doc.source)
        if version:  # which version's words these are, as get_doc says (an agent tour)
            out["source_version"] = version
        return out


def _path_forms(p: str) -> tuple[str, ...]:
    """A path as given, without ./, and with the leading / of an llms.txt source's URL paths."""
    bare = p.lstrip("./")
    return tuple(dict.fromkeys((p, bare, "/" + bare) if bare else (p,)))


class NotInThisVersion(NotFoundError):
    """``LIB:PATH`` names a page the version of LIB read here lacks and another version has."""


def _whole_limit(limit: object) -> int:
    """A result count as given: a whole number of at least 1, else a UsageError (a library
    tour: ``candidates(limit=0)`` answered seven hits, ``search(limit="3")`` a TypeError)."""
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise UsageError(f"limit must be a whole number, not {limit!r}", arguments=("limit",))
    if limit < 1:
        raise UsageError("limit must be at least 1", arguments=("limit",))
    return limit


def _cited_page(ref: str) -> str | None:
    """The page of a citation with its lines, as get_examples and assemble write them
    (``docs/clients.md:187``, ``httpx:docs/clients.md:12-30``; grep's ``docs/clients.md:187:``
    too); None for any other reference."""
    page, sep, lines = _without_grep_colon(ref).rpartition(":")
    first, _, last = lines.partition("-")
    if not sep or not _digits(first) or (last and not _digits(last)):
        return None
    return page if "." in page.rsplit("/", 1)[-1] else None


def _cited_lines(ref: str) -> tuple[int, int] | None:
    """The lines of a citation (``docs/clients.md:187`` → (187, 187), ``…:12-30`` → (12, 30));
    None for any other reference."""
    if _cited_page(ref) is None:
        return None
    first, _, last = _without_grep_colon(ref).rpartition(":")[2].partition("-")
    return int(first), int(last or first)


def _without_grep_colon(ref: str) -> str:
    """A citation as ``grep -n`` writes it (``docs/clients.md:187:``) without its last colon."""
    if ref.endswith(":"):
        first, _, last = ref[:-1].rpartition(":")[2].partition("-")
        if _digits(first) and (not last or _digits(last)):
            return ref[:-1]
    return ref


def _digits(text: str) -> bool:
    """Whether ``text`` is a line number: ASCII digits (``²`` is a digit to ``str.isdigit``)."""
    return text.isascii() and text.isdigit()


def _local_file(ref: str) -> bool:
    """Whether ``ref`` names a file on disk from the current folder (a page, not a folder)."""
    try:
        return bool(Path(ref).suffix) and Path(ref).is_file()
    except (OSError, ValueError):
        return False


# a number, a dash, underscore or dot, then a name (not a version's `1.2`, nor a date's
# `2024-01-01`): Docusaurus' `10-routing.md`, Nuxt Content's `10.data-fetching.md`
_NUMBER_PREFIX = re.compile(r"(^|/)\d+[-_.](?=[^/\d])")


def _unnumbered(path: str) -> str:
    """A path without its parts' number prefixes (``20-core-concepts/10-routing.md`` →
    ``core-concepts/routing.md``), as Docusaurus, SvelteKit and Nuxt Content route their pages."""
    return _NUMBER_PREFIX.sub(r"\1", path) if any(c.isdigit() for c in path) else path


_FRONT_MATTER_CHARS = 4000  # what is read of a page for its front matter's slug


def _front_matter_slug(text: str) -> str | None:
    """The ``slug:`` of a page's front matter, or None."""
    if not text.startswith("---"):
        return None
    from docmentor.parse.markdown import split_front_matter  # markdown-it: not for every search

    slug = split_front_matter(text.split("\n"))[0].get("slug")
    return slug.strip() or None if isinstance(slug, str) else None


_DASH_RUN = re.compile(r"-{2,}")
# how a site links a page without its extension (``guide/install`` for guide/install.md)
_PAGE_SUFFIXES = (".md", ".mdx", ".rst", "/index.md", "/index.mdx", "/index.rst", "/README.md")


_PUNCTUATION_RUN = re.compile(r"[\W_]+")


def _loose(text: str) -> str:
    """A heading or anchor as VitePress slugs it, but for its leading `_`: letters and digits
    (accents dropped), each run of anything else one dash."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _PUNCTUATION_RUN.sub("-", plain.lower()).strip("-")


def _dashes(anchor: str) -> str:
    """An anchor with each run of dashes as one (``a--b`` and ``a-b`` are one anchor)."""
    return _DASH_RUN.sub("-", anchor.strip("-"))
