"""Refreshing sources: each one read, parsed and written to the store and the lexical
index as one atomic change, with the shrink guard (``prune``), the deadline, and a
failing source reported without stopping the others; also adding and removing sources."""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.config import (
    DEFAULT_REFRESH_DEADLINE,
    ConfiguredSource,
    auto_name,
    indexed_name,
    is_url,
    load_config,
    validate_name,
    with_defaults,
)
from docmentor.engine.embedding import Embedding
from docmentor.engine.read_source import SourceRead, read_folder, read_llms, set_updated_times
from docmentor.engine.reports import Progress, RefreshReport
from docmentor.errors import DocmentorError, SourceUnavailableError, UsageError
from docmentor.models import RawDocument, SourceKind, SourceOptions, SourceSpec
from docmentor.parse.batch import parse_many
from docmentor.search.lexical import section_terms
from docmentor.search.semantic import write_units
from docmentor.search.units import Unit
from docmentor.store.rows import DocChange, SourceRow

if TYPE_CHECKING:
    from docmentor.sources.versions import FoundVersion

log = logging.getLogger(__name__)

#: a refresh that would leave a source fewer than half of its documents, when it had at least
#: this many, removes none (they stay, stale) and warns: removing them takes ``refresh --prune``
PRUNE_GUARD_MIN = 4

# Part of every content hash: bump it when parsing changes (sections, links …), so the next
# refresh re-parses documents whose text did not change.
# p4: reST titles without inline markup; front-matter-only pages; p5: reST doctest blocks;
# p6: a reST label starts the section it names; p7: reST title roles as Sphinx shows them;
# p8: a MyST label starts the section it names too; p9: a Markdown heading without its attr_list ({#id});
# p10: a Markdown heading without inline HTML; p11: prose's HTML comments and HTML/JSX tags neither indexed nor embedded
# p12: <script> and <style> blocks neither indexed nor embedded; a preamble of only tags is no unit;
# a heading link with an angle-bracket destination read as its text; VitePress `<<<` snippets and MDX
# partials included; code read as shown (twoslash setup, magic comments); a tag's label read as text
# p13: a heading inside a site's tab region (`<!-- ::start:framework -->`) is the tab's label
# p14: front matter YAML refuses read as key: value lines; character references in headings decoded
# p15: Markdown link reference definitions (`[cite]: https://…`) neither indexed nor embedded
# p16: VitePress `<!--@include: -->` files included; a component's badge in a heading
# (`<Version>4.1.0</Version>`) no part of it; a terminal's escape sequences left out of pages
# p17: MDX component names in code spans kept (CommonMark's pairing of backtick runs); a tab's
# `label` attribute in MDX read as text, as in Markdown
# p18: a MyST directive fence holds code only when it is a code directive ({code-block},
# {doctest} …) or a diagram; an admonition's ({note}) code is its own fences; {toctree} none
# p19: a heading's attr_list of keys and values (`{ id=navigation-path }`, `{ data-search-exclude }`)
# no part of its title, its `id=` the section's anchor; Material for MkDocs' code annotation
# markers (`# (1)!`) no words of the code
# p20: a heading's emphasis and backslash escapes read as rendered (`**not**` → not, `\_Keys` →
# `_Keys`); a fence's language without VitePress's line marks (`ts{3,15-17}` → ts)
# p21: a component tag over several lines in Markdown (`<CourseLink` / `title="…"` / `/>`)
# dropped, as in MDX
# p22: MDC components (`::note` … `::`, their YAML props, `:badge[v4.3]`, `:read-more{to=…}`)
# are markup, their `to` targets links
# p23: a front matter's one-line `description:` is the page's opening text, on its own line
# p24: mdBook's `{{#include}}` / `{{#rustdoc_include}}` / `{{#playground}}` expanded; a page that
# is only a table of contents (mdBook's SUMMARY.md) kept for `get`, left out of search; a Rust
# block's rustdoc hidden lines (`# fn main() {`) not shown; Hugo shortcodes read as markup
PARSE_VERSION = "p24"


def content_hash(doc: RawDocument) -> str:
    return hashlib.sha256(f"{PARSE_VERSION}\0{doc.fmt}\0{doc.content}".encode()).hexdigest()


class Refreshing(Embedding):
    """Adds, refreshes, removes and re-indexes sources (see :class:`Docmentor`)."""

    # -- sources ---------------------------------------------------------------------
    def add(
        self,
        target: str | os.PathLike[str],
        *,
        name: str | None = None,
        options: SourceOptions | Mapping[str, object] | None = None,
        progress: Progress | None = None,
        embed: bool = True,
        version: str | None = None,
    ) -> RefreshReport:
        """Register a source (folder, llms.txt URL or local llms.txt file) and index it now.

        ``options``: how it is read (:class:`SourceOptions`, or a mapping of its fields, e.g.
        ``{"max_bytes": 200_000}``; a bad one raises :class:`UsageError`).
        ``version``: the library version the docs describe (the ``version`` option): the
        source is then named ``NAME@VERSION`` and sits beside the library's other versions.
        Without it the version is read from the docs (package metadata, llms.txt) or the
        installed package, and the name stays, unless another version of the library holds it.
        The options not given take the defaults of the working folder's ``docmentor.toml``
        (``max_bytes``, ``[fetch]`` for an llms.txt), else keep what they were when the same
        docs were added under this name before; they are stored with the source: its
        refreshes read them back.
        The source is searchable by words once its lexical index is committed; then, unless
        ``embed=False`` or embeddings are off, its new sections are embedded (:meth:`embed`)."""
        from docmentor.sources.versions import beside_other_version

        self.store.check_writable()
        spec = self.make_spec(target, name=name, options=options, version=version)
        opts, _ = with_defaults(spec.options, load_config(), llms=spec.kind != "folder")
        spec = replace(spec, options=opts)
        spec = beside_other_version(spec, {r.name: (r.target, r.version) for r in self.store.sources()})
        spec = replace(spec, options=self._kept_options(spec))  # by the name it is stored under
        report = self._refresh_spec(spec, progress=progress)
        shared = self._same_docs_as(spec)
        if shared:
            report = replace(report, warnings=[*report.warnings, shared])
        if embed:
            report = replace(report, embedding=self.embed(progress=progress, sources=[spec.name]))
        return report

    def _same_docs_as(self, spec: SourceSpec) -> str | None:
        """A warning when another version of the library reads the same folder or llms.txt:
        the two hold the same docs now, and each refresh of either reads what is there then
        (a versions tour: a checkout moved to 2.0 added beside 1.0 from the same folder)."""
        from docmentor.sources.versions import library_of

        if "@" not in spec.name:
            return None
        others = sorted(
            r.name
            for r in self.store.sources()
            if r.name != spec.name and r.target == spec.target and library_of(r.name) == library_of(spec.name)
        )
        if not others:
            return None
        what = "folder" if spec.kind == "folder" else "llms.txt"
        return (
            f"{', '.join(others)} reads the same {what} ({spec.target}): both versions hold the docs "
            f"it holds now, and each refresh reads it again; give each version a {what} of its own "
            "(a copy, or a worktree at its tag)"
        )

    def _kept_options(self, spec: SourceSpec) -> SourceOptions:
        """``spec``'s options over those its source was added with, when the same docs are
        added again under the same name: what was given then is kept, an option given now
        (or a default of docmentor.toml) replaces its own (a tour: ``add`` again dropped
        ``--allow-host`` and the rest)."""
        if not self.store.has_source(spec.name):
            return spec.options
        row = self.store.source(spec.name)
        if row.target != spec.target or not row.options:
            return spec.options
        given = {f.name: v for f in fields(spec.options) if (v := getattr(spec.options, f.name)) is not None}
        return replace(SourceOptions.from_stored(row.options), **given)

    @staticmethod
    def make_spec(
        target: str | os.PathLike[str],
        *,
        name: str | None = None,
        options: SourceOptions | Mapping[str, object] | None = None,
        version: str | None = None,
    ) -> SourceSpec:
        """The source ``add`` would register; ``version`` (or the ``version`` option) names it
        ``NAME@VERSION``."""
        target = os.fspath(target).strip()
        if not target:
            raise UsageError(
                "empty target", hint="give a docs folder, an llms.txt URL or a local llms.txt file"
            )
        from docmentor.sources.llmstxt import detect_kind

        if options is None:
            opts = SourceOptions()
        elif isinstance(options, SourceOptions):
            opts = options
        else:
            opts = SourceOptions.parse(options)
        if version is not None:
            if opts.version is not None and opts.version != version.strip():
                raise UsageError(
                    f"two versions given: {version!r} and the option {opts.version!r}",
                    arguments=("version",),
                )
            opts = replace(opts, version=version.strip())
        kind: SourceKind
        if is_url(target):
            kind = detect_kind(target)
        elif "://" in target:
            raise UsageError(f"unsupported URL scheme in {target!r}", hint="use http(s):// or a local path")
        else:
            # absolute but not resolved: a `docs -> v2` symlink is followed anew at each refresh
            path = Path(os.path.abspath(Path(target).expanduser()))
            if not path.exists():
                raise SourceUnavailableError(f"no such file or folder: {target}")
            if path.is_dir():
                kind = "folder"
                if opts.base_paths is not None:
                    bases = tuple(str((path / b).resolve()) for b in opts.base_paths)
                    opts = replace(opts, base_paths=bases)
                    missing = [b for b in bases if not Path(b).is_dir()]
                    if missing:  # includes would be refused there one by one, and nothing said
                        raise UsageError(
                            f"base_paths {missing[0]} is not a folder",
                            hint="give the folders the docs' includes read from",
                            arguments=("base_paths",),
                        )
            elif path.name.lower().endswith(".txt"):
                kind = detect_kind(str(path))
            else:
                raise UsageError(f"{target} is a file; add its folder, or an llms.txt file")
            target = str(path)
        # an empty name is an error (--name ""), not "no name"
        base = validate_name(name) if name is not None else auto_name(target)
        return SourceSpec(
            name=indexed_name(base, opts.version),
            kind=kind,
            target=target,
            options=opts,
        )

    def refresh_with_config(
        self,
        configured: Sequence[ConfiguredSource],
        *,
        progress: Progress | None = None,
        embed: bool = True,
        prune: bool = False,
        deadline: float | None = DEFAULT_REFRESH_DEADLINE,
    ) -> list[RefreshReport]:
        """Index the configured sources that are not in the index yet, each on its own (one
        that cannot be read is a report with its ``error``, kind ``configured``), then
        refresh every other source (``configured``: ``docmentor.toml``'s sources, :func:`load_config`).
        A configured source already indexed is refreshed with its entry's options when they
        were edited since; one whose entry now points elsewhere is refreshed from where it
        was indexed, with a warning saying how to move it (:meth:`configured_change`).
        ``prune`` and ``deadline`` (seconds for the whole call) as for :meth:`refresh`."""
        self.store.check_writable()  # a read-only index: said once, not as each source's failure
        reports: list[RefreshReport] = []
        added: set[str] = set()
        edited: dict[str, SourceSpec] = {}  # indexed configured sources whose options were edited
        notes: dict[str, str] = {}  # … and those whose entry points elsewhere now
        ends = _deadline(deadline)
        with self.adding_configured:  # one thread of this process adds them, the others wait
            known = {r.name: r for r in self.store.sources()}
            for src in configured:
                indexed = src.indexed_name
                if indexed in known:
                    spec, note = self.configured_change(src, known[indexed])
                    if spec is not None:
                        edited[indexed] = spec
                    if note is not None:
                        notes[indexed] = note
                    continue
                if indexed in added:
                    continue
                added.add(indexed)
                reports.append(self._add_configured(src, progress=progress, ends=ends, raises=False))
        rest = self._refresh_rows(
            None, progress=progress, exclude=added, prune=prune, ends=ends, specs=edited
        )
        reports.extend(_noted(r, notes.get(r.source)) for r in rest)
        return self._with_embedding(reports, progress) if embed else reports

    def refresh_configured(
        self,
        src: ConfiguredSource,
        *,
        progress: Progress | None = None,
        embed: bool = True,
        prune: bool = False,
        deadline: float | None = DEFAULT_REFRESH_DEADLINE,
        report_errors: bool = False,
    ) -> list[RefreshReport]:
        """The configured source ``src`` alone, as :meth:`refresh_with_config` takes it:
        indexed when it is not yet (``refresh NAME`` of a source docmentor.toml names), else
        refreshed with its entry's options (:meth:`configured_change`). Its failure is raised,
        or with ``report_errors`` its report's (kind ``configured`` when it was never indexed).
        ``prune`` and ``deadline`` as for :meth:`refresh`."""
        ends = _deadline(deadline)
        name = src.indexed_name
        with self.adding_configured:
            row = next((r for r in self.store.sources() if r.name == name), None)
            if row is None:
                reports = [self._add_configured(src, progress=progress, ends=ends, raises=not report_errors)]
                return self._with_embedding(reports, progress, [name]) if embed else reports
        spec, note = self.configured_change(src, row)
        rows = self._refresh_rows(
            name,
            progress=progress,
            exclude=(),
            prune=prune,
            ends=ends,
            raises=not report_errors,
            specs={name: spec} if spec is not None else None,
        )
        reports = [_noted(r, note) for r in rows]
        return self._with_embedding(reports, progress, [name]) if embed else reports

    def _add_configured(
        self, src: ConfiguredSource, *, progress: Progress | None, ends: float | None, raises: bool
    ) -> RefreshReport:
        """Index the configured source ``src`` (not in the index yet). A failure is raised,
        or (not ``raises``) its report's: kind ``configured``, nothing counted."""
        began = time.perf_counter()
        try:
            if ends is not None and time.monotonic() >= ends:
                raise SourceUnavailableError("not added: the time limit of this refresh passed")
            spec = self.make_spec(src.target, name=src.name, options=src.settings)
            return self._refresh_spec(spec, progress=progress, ends=ends)
        except Exception as exc:  # this one is not indexed; the others still are
            if raises:
                raise
            message = _failure(src.name, exc)
            return RefreshReport(
                source=src.name,
                kind="configured",
                error=message,
                warnings=[message],
                seconds=time.perf_counter() - began,
            )

    def configured_change(
        self, src: ConfiguredSource, row: SourceRow
    ) -> tuple[SourceSpec | None, str | None]:
        """How the configured source ``src``, indexed as ``row``, is refreshed now that its
        entry may have been edited: the spec to refresh it with when its options differ from
        those indexed (None: as indexed), and a warning when its entry cannot be used.

        An entry pointing elsewhere (its ``path`` or ``url`` edited) is not followed: the
        name may hold a source someone added by hand (``add --name``), which a refresh must
        not replace; the warning says how to move it (remove it, then refresh)."""
        try:
            spec = self.make_spec(src.target, name=src.name, options=src.settings)
        except DocmentorError as exc:
            return None, (
                f"{row.name}: its configured entry cannot be read ({exc}); refreshed as indexed, "
                f"from {row.target}"
            )
        if spec.target != row.target:
            return None, (
                f"{row.name} is configured as {spec.target} but indexed from {row.target}: refreshed "
                f"from {row.target}; to index {spec.target} instead: docmentor remove {row.name}, "
                "then docmentor refresh"
            )
        try:
            same = spec.options == row.spec.options
        except DocmentorError:  # stored options this version cannot read: the entry's then
            same = False
        return (None if same else replace(spec, name=row.name)), None

    def refresh(
        self,
        name: str | None = None,
        *,
        progress: Progress | None = None,
        exclude: Collection[str] = (),
        embed: bool = True,
        prune: bool = False,
        deadline: float | None = DEFAULT_REFRESH_DEADLINE,
        report_errors: bool = False,
    ) -> list[RefreshReport]:
        """Re-read one source (or every version of the library ``name`` names), or all but
        ``exclude``.

        A source that cannot be read, or whose refresh fails in any way, is left as it was:
        with ``name`` the error is raised (with ``report_errors``, it is the report's, as for
        all sources; an unknown ``name`` is still raised); otherwise it is that source's report
        (``error``) and the other sources are still refreshed.

        ``prune``: remove the documents a source no longer lists even when that is most of
        them (without it, a refresh that would leave a source of at least
        :data:`PRUNE_GUARD_MIN` documents fewer than half of them keeps them, marked stale,
        with a warning).
        ``deadline``: seconds for the whole call (None: no limit); llms.txt documents not
        fetched by then keep their last good copy, sources not reached are left as they were.
        """
        self.store.check_writable()  # a read-only index: said once, not as each source's failure
        # unknown: said with the configured sources not indexed yet; a library: its versions
        names = self.sources_named(name) if name is not None else None
        ends = _deadline(deadline)
        if names is None or names == [name]:
            reports = self._refresh_rows(
                name,
                progress=progress,
                exclude=exclude,
                prune=prune,
                ends=ends,
                raises=name is not None and not report_errors,
            )
        else:  # each version on its own, as every source is refreshed
            reports = [
                r
                for n in names
                for r in self._refresh_rows(n, progress=progress, exclude=(), prune=prune, ends=ends)
            ]
        return self._with_embedding(reports, progress, names) if embed else reports

    def _refresh_rows(
        self,
        name: str | None,
        *,
        progress: Progress | None,
        exclude: Collection[str],
        prune: bool,
        ends: float | None,
        raises: bool = False,
        specs: Mapping[str, SourceSpec] | None = None,
    ) -> list[RefreshReport]:
        """Refresh the source ``name``, or every one but ``exclude``, each as indexed, or as
        ``specs`` (by name) has it."""
        rows = (
            [self.store.source(name)]
            if name is not None  # "" is refused by the store, not taken for every source
            else [r for r in self.store.sources() if r.name not in exclude]
        )
        reports: list[RefreshReport] = []
        for row in rows:
            began = time.perf_counter()
            try:
                if ends is not None and time.monotonic() >= ends:
                    raise SourceUnavailableError(
                        "not refreshed: the time limit of this refresh passed",
                        hint="it keeps its documents; refresh it on its own, or with a longer deadline",
                        arguments=("deadline",),
                    )
                spec = (specs or {}).get(row.name) or row.spec
                reports.append(self._refresh_spec(spec, progress=progress, prune=prune, ends=ends))
            except Exception as exc:  # any failure of one source is that source's, not the others'
                message = _failure(row.name, exc)
                try:
                    self.store.set_source_status(row.name, status="error", error=message)
                except Exception:  # e.g. the disk is full: the report still says it
                    log.debug("cannot record the error of source %s", row.name, exc_info=True)
                if raises:
                    if isinstance(exc, DocmentorError):
                        if not exc.hint:  # what happened to the source, and what to do
                            exc.hint = "it was left as it was (its documents are still searched); refresh it again later"
                        raise
                    raise SourceUnavailableError(
                        f"cannot refresh {name}: {message}",
                        hint="it was left as it was; run with --debug for the traceback",
                    ) from exc
                reports.append(
                    RefreshReport(
                        source=row.name,
                        kind=row.kind,
                        error=message,
                        warnings=[message],
                        failed=[(row.target, message)],
                        documents=row.documents,  # what is still indexed from it
                        sections=row.sections,
                        seconds=time.perf_counter() - began,  # the tries it took to fail
                    )
                )
        return reports

    def _with_embedding(
        self, reports: list[RefreshReport], progress: Progress | None, sources: Sequence[str] | None = None
    ) -> list[RefreshReport]:
        """The reports with the embedding run that follows them (none: embeddings are off);
        ``sources``: only their units (default: every unit without a vector)."""
        if not reports or not self.embeddings:
            return reports
        done = self.embed(progress=progress, sources=sources)
        return [replace(r, embedding=done) for r in reports]

    def remove(self, name: str) -> None:
        """Remove the source ``name`` and everything indexed from it (NotFoundError, naming
        the known sources, when there is none so named)."""
        self._known_source(name)  # NotFoundError, telling a configured source not indexed yet
        with self.store.write_lock():
            # lexical first, marked behind: a writer dying in between leaves a source the next
            # writer re-indexes, never search results from a source the store no longer has
            self.store.mark_lexical(name, -1)
            self.lexical.replace(drop_document_ids=(), rows=(), drop_sources=[name])
            self.store.delete_source(name)

    def reindex(self) -> int:
        """Rebuild the lexical index from the store; returns the number of search units (the
        sections as search ranks them: :mod:`docmentor.search.units`)."""
        with self.store.write_lock():
            n = self._rebuild_lexical()
            self.store.set_setting("analyzer", self.index_version)
        return n

    # -- the refresh itself -------------------------------------------------------------
    def _refresh_spec(
        self, spec: SourceSpec, *, progress: Progress | None, prune: bool = False, ends: float | None = None
    ) -> RefreshReport:
        t0 = time.perf_counter()
        try:
            return self._refresh_once(spec, progress=progress, prune=prune, ends=ends, t0=t0, recheck=True)
        except _Overtaken:
            # another writer (a second `add`, a server's refresh) committed this source while we
            # read it: what we compared against is gone, so read again against what it wrote
            log.info("%s: another writer refreshed it meanwhile; reading it again", spec.name)
            return self._refresh_once(spec, progress=progress, prune=prune, ends=ends, t0=t0, recheck=False)

    def _generation(self, name: str) -> int | None:
        return next((gen for n, gen, _ in self.store.generations() if n == name), None)

    def _refresh_once(
        self,
        spec: SourceSpec,
        *,
        progress: Progress | None,
        prune: bool,
        ends: float | None,
        t0: float,
        recheck: bool,
    ) -> RefreshReport:
        read_at = self._generation(spec.name)  # None: not registered yet
        existing = self.store.documents(spec.name) if read_at is not None else {}
        if existing:
            old = self.store.source(spec.name)
            if old.target != spec.target:
                raise UsageError(
                    f"source {spec.name!r} already points at {old.target}",
                    hint="remove it first, or choose another name",
                    arguments=("name",),
                )
        served: dict[str, str] = {}  # llms.txt documents: how each was served ('html' | 'text')
        if spec.kind == "folder":
            read = read_folder(self.store, spec)
            index_path: str | None = None
        else:
            read = read_llms(self.store, spec, existing, progress, served, ends)
            index_path = read.ok_paths[0]  # the llms.txt itself
        found = _version_of(spec, read, index_path)
        stale, fresh = dict(read.stale), [*read.fresh]
        warnings = list(read.warnings)

        to_parse: list[tuple[RawDocument, str]] = []
        added = updated = unchanged = 0
        for raw in read.docs:
            h = content_hash(raw)
            prev = existing.get(raw.path)
            # the same text served from another address (a site moved to another host) is
            # written again: its URL is what conditional requests and citations use
            if prev is not None and prev.content_hash == h and (not raw.url or raw.url == prev.url):
                unchanged += 1
                if prev.stale:
                    fresh.append(raw.path)
                continue
            to_parse.append((raw, h))
            if prev is None:
                added += 1
            else:
                updated += 1
        # parsed, and each section's index terms computed, on two cores when it pays
        parsed, body_terms = parse_many([raw for raw, _ in to_parse], analyze=section_terms)
        changes = [
            DocChange(raw=raw, parsed=p, content_hash=h) for (raw, h), p in zip(to_parse, parsed, strict=True)
        ]
        set_updated_times(spec, [c.raw for c in changes])
        listed = set(read.ok_paths) | set(stale)
        delete_paths = [p for p in existing if p not in listed]
        if delete_paths and not prune:
            # a document the reader skipped (over a lower size cap, binary now) is there and left
            # out as asked: removed, and not counted among those gone (the guard's suspicion)
            skipped = {path for path, _ in read.skipped}
            gone = [p for p in delete_paths if p not in skipped]
            kept = _guard_removals(spec, existing, listed | skipped, gone, index_path, stale, warnings)
            delete_paths = [p for p in delete_paths if p in skipped] + kept
        stale = {p: e for p, e in stale.items() if p in existing}
        # how unchanged documents were served, where the store does not know it yet (rows older
        # than the `served` column): recorded once, so an HTML error page is caught next time
        served_unknown = any(p in existing and existing[p].served != v for p, v in served.items())
        needs_write = bool(changes or delete_paths or stale or fresh or served_unknown) or not existing
        # a writer that died between the two commits left some source behind: repair it now
        if needs_write or any(r.lexical_generation != r.generation for r in self.store.sources()):
            with self.store.write_lock():
                if recheck and self._generation(spec.name) != read_at:
                    raise _Overtaken(spec.name)
                self._repair()
                gen, written, dropped = self.store.apply(
                    spec,
                    changes=changes,
                    delete_paths=delete_paths,
                    stale=stale,
                    fresh_paths=fresh,
                    version=found.version if found else read.version,
                    title=read.title,
                    served=served,
                    version_origin=found.origin if found else None,
                )
                units: list[Unit] = []
                self.lexical.replace(
                    drop_document_ids=dropped,
                    rows=self.store.lexical_rows(written),
                    body_terms=body_terms,
                    on_unit=units.append,
                )
                write_units(self.store, units, code_lines=self.ranking.embed_code_lines)
                self.store.mark_lexical(spec.name, gen)
        else:
            options = spec.options.as_dict()  # `add` again with other options: kept, as a write keeps them
            changed = options if self.store.source(spec.name).options != options else None
            self.store.set_source_status(spec.name, status="ok", error=None, refreshed=True, options=changed)
            if found is not None and self.store.source_versions().get(spec.name) != found.version:
                self.store.set_source_version(spec.name, found.version, found.origin)
        unread = [(p, e) for p, e in read.failed if p not in read.refused]
        if unread:  # the source is fine; some of its documents are not (a 404 link)
            first_path, first_error = unread[0]
            self.store.set_source_status(
                spec.name,
                status="ok",
                error=f"{len(unread)} document(s) could not be read, first {first_path}: {first_error}",
            )
        row = self.store.source(spec.name)
        if (
            found is None
            and row.version_origin == "llms.txt"
            and any(d.path == index_path for d in read.docs)
        ):
            # the llms.txt was read and no longer states the version it stated: no version now
            self.store.set_source_version(spec.name, None, None)
            row = self.store.source(spec.name)
        return RefreshReport(
            source=spec.name,
            kind=spec.kind,
            added=added,
            updated=updated,
            unchanged=read.unchanged + unchanged,
            removed=len(delete_paths),
            failed=read.failed,
            skipped=read.skipped,
            warnings=warnings,
            documents=row.documents,
            sections=row.sections,
            seconds=time.perf_counter() - t0,
            refused=read.refused,
            version=row.version,
            version_origin=row.version_origin if row.version else None,
            nothing_read=bool(unread) and not any(p != index_path for p in read.ok_paths),
        )


class _Overtaken(Exception):
    """Another writer committed the source between a refresh's read and its write lock."""


def _version_of(spec: SourceSpec, read: SourceRead, index_path: str | None) -> FoundVersion | None:
    """The version the source describes now (None: keep what the store has). An llms.txt
    whose text was not read this time (unchanged) keeps its stored version."""
    from docmentor.sources.versions import detect_version, library_of

    if spec.kind == "folder":
        return detect_version(
            given=spec.options.version,
            folder=Path(spec.target),
            llms_text=None,
            library=library_of(spec.name),
        )
    text = next((d.content for d in read.docs if d.path == index_path), None)
    if text is None and not spec.options.version:
        return None
    return detect_version(
        given=spec.options.version, folder=None, llms_text=text, library=library_of(spec.name)
    )


def _noted(report: RefreshReport, note: str | None) -> RefreshReport:
    """``report`` with the warning ``note`` first (None: as it is)."""
    return report if note is None else replace(report, warnings=[note, *report.warnings])


def _deadline(seconds: float | None) -> float | None:
    """The monotonic time a call with a limit of ``seconds`` must end (None: no limit)."""
    if seconds is None:
        return None
    if not seconds > 0:
        raise UsageError(f"the refresh time limit must be positive, not {seconds!r}")
    return time.monotonic() + seconds


def _guard_removals(
    spec: SourceSpec,
    existing: dict[str, Any],
    listed: set[str],
    delete_paths: list[str],
    index_path: str | None,
    stale: dict[str, str],
    warnings: list[str],
) -> list[str]:
    """The documents a refresh without ``prune`` removes: all that vanished, unless the
    source would keep fewer than half of the documents it had, when it had at least
    :data:`PRUNE_GUARD_MIN`: then none (they are marked stale, and ``warnings`` says so). A
    listing that suddenly drops most of a site is more often a broken or partial page (a
    folder: an unmounted disk) than a site that deleted its documentation; a site that
    renamed its pages lists as many as before, and is refreshed as usual."""
    had = sum(1 for p in existing if p != index_path)
    now = sum(1 for p in listed if p != index_path)
    if had < PRUNE_GUARD_MIN or 2 * now >= had:
        return delete_paths
    where = "the llms.txt no longer lists it" if index_path is not None else "no longer in the folder"
    for path in delete_paths:
        stale[path] = f"{where}; kept until `docmentor refresh --prune {spec.name}`"
    warnings.append(
        f"{len(delete_paths)} of the {had} documents of {spec.name} are gone from {spec.target}: they were "
        "kept, marked stale, in case the page is broken or partial (or a disk not mounted). "
        f"If they really are gone: docmentor refresh --prune {spec.name}"
    )
    return []


def _failure(source: str, exc: BaseException) -> str:
    """One line for a source's failed refresh; the traceback of an unexpected one goes to the debug log."""
    if isinstance(exc, DocmentorError):
        return str(exc)
    log.debug("refreshing source %s failed", source, exc_info=exc)
    return f"unexpected {type(exc).__name__}: {exc} (the source was left as it was)"
