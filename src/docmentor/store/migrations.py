"""Named, append-only schema migrations. Never edit one that has shipped; add a new one."""

from __future__ import annotations

from collections.abc import Callable

from docmentor.store.dbapi import Connection

Migration = Callable[[Connection], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def _script(db: Connection, sql: str) -> None:
    # not executescript(): it commits first, and a migration must run inside our transaction
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(statement)


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append((fn.__name__, fn))
    return fn


@migration
def m001_initial(db: Connection) -> None:
    _script(
        db,
        """
        CREATE TABLE sources (
            name TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            target TEXT NOT NULL,
            options TEXT NOT NULL DEFAULT '{}',
            version TEXT,
            title TEXT,
            created_at TEXT NOT NULL,
            refreshed_at TEXT,
            status TEXT NOT NULL DEFAULT 'new',
            error TEXT,
            generation INTEGER NOT NULL DEFAULT 0,
            lexical_generation INTEGER NOT NULL DEFAULT -1
        );
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL REFERENCES sources(name) ON DELETE CASCADE,
            path TEXT NOT NULL,
            url TEXT NOT NULL,
            title TEXT NOT NULL,
            fmt TEXT NOT NULL,
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            line_map TEXT,
            meta TEXT NOT NULL DEFAULT '{}',
            etag TEXT,
            last_modified TEXT,
            fetched_at TEXT NOT NULL,
            indexed_at TEXT NOT NULL,
            stale INTEGER NOT NULL DEFAULT 0,
            error TEXT,
            UNIQUE (source, path)
        );
        CREATE INDEX documents_url ON documents(url);
        CREATE TABLE sections (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            ord INTEGER NOT NULL,
            heading TEXT NOT NULL,
            heading_path TEXT NOT NULL,
            level INTEGER NOT NULL,
            anchor TEXT NOT NULL,
            line_start INTEGER NOT NULL,
            line_end INTEGER NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX sections_document ON sections(document_id);
        CREATE TABLE code_blocks (
            id INTEGER PRIMARY KEY,
            section_id INTEGER NOT NULL REFERENCES sections(id) ON DELETE CASCADE,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            language TEXT NOT NULL,
            code TEXT NOT NULL,
            line INTEGER NOT NULL
        );
        CREATE INDEX code_blocks_document ON code_blocks(document_id);
        CREATE TABLE links (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            target TEXT NOT NULL,
            anchor TEXT,
            line INTEGER NOT NULL
        );
        CREATE INDEX links_document ON links(document_id);
        CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """,
    )


@migration
def m002_searchable(db: Connection) -> None:
    # An llms.txt's own table of contents is served by `get` but kept out of search.
    db.execute("ALTER TABLE documents ADD COLUMN searchable INTEGER NOT NULL DEFAULT 1")


@migration
def m003_updated_at(db: Connection) -> None:
    # When the document last changed at its origin (git commit time, mtime, Last-Modified),
    # for recency in canonicality; NULL when unknown.
    db.execute("ALTER TABLE documents ADD COLUMN updated_at TEXT")


@migration
def m004_knowledge_bases(db: Connection) -> None:
    # Registered README.LLM knowledge bases, one per library, with their records, so the MCP
    # server and `docmentor api` read them from the index. `generation` bumps on every
    # registration (readers cache by it).
    _script(
        db,
        """
        CREATE TABLE knowledge_bases (
            library TEXT PRIMARY KEY,
            version TEXT,
            path TEXT NOT NULL,
            generated_at TEXT NOT NULL,
            api_count INTEGER NOT NULL,
            example_count INTEGER NOT NULL,
            generation INTEGER NOT NULL DEFAULT 1,
            overview TEXT NOT NULL DEFAULT '{}',
            metadata TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE kb_entries (
            library TEXT NOT NULL REFERENCES knowledge_bases(library) ON DELETE CASCADE,
            api_id TEXT NOT NULL,
            ord INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (library, api_id)
        );
        CREATE TABLE kb_examples (
            library TEXT NOT NULL REFERENCES knowledge_bases(library) ON DELETE CASCADE,
            example_id TEXT NOT NULL,
            ord INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (library, example_id)
        );
        """,
    )


@migration
def m005_feedback(db: Connection) -> None:
    # report_issue: identical reports share a key and are counted, not stored twice.
    _script(
        db,
        """
        CREATE TABLE feedback (
            key TEXT PRIMARY KEY,
            library TEXT,
            query TEXT NOT NULL,
            issue_type TEXT NOT NULL,
            apis_tried TEXT NOT NULL DEFAULT '[]',
            error_message TEXT,
            code_attempted TEXT,
            session_context TEXT NOT NULL DEFAULT '[]',
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            count INTEGER NOT NULL DEFAULT 1
        );
        CREATE INDEX feedback_library ON feedback(library)
        """,
    )


@migration
def m006_kb_vectors(db: Connection) -> None:
    # find_api's semantic ranking: one float32 matrix per library, rows in api_ids order.
    _script(
        db,
        """
        CREATE TABLE kb_vectors (
            library TEXT PRIMARY KEY REFERENCES knowledge_bases(library) ON DELETE CASCADE,
            model TEXT NOT NULL,
            dimensions INTEGER NOT NULL,
            api_ids TEXT NOT NULL,
            data BLOB NOT NULL
        )
        """,
    )


@migration
def m007_code_blocks_section_index(db: Connection) -> None:
    # Deleting a section cascades to its code blocks: without this index, each deleted
    # section scanned every code block (a refresh of 1,500 changed files: 13 s, not 3).
    _script(db, "CREATE INDEX IF NOT EXISTS code_blocks_section ON code_blocks(section_id)")


@migration
def m008_section_vectors(db: Connection) -> None:
    # Hybrid search: the search units of each document with the hash of the text that is
    # embedded, and the vectors, keyed by that hash (unchanged sections are never embedded
    # again, and a vector outlives a refresh that re-writes its document).
    _script(
        db,
        """
        CREATE TABLE search_units (
            section_id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            source TEXT NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE INDEX search_units_document ON search_units(document_id);
        CREATE INDEX search_units_hash ON search_units(hash);
        CREATE TABLE unit_vectors (
            model TEXT NOT NULL,
            hash TEXT NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (model, hash)
        );
        """,
    )


@migration
def m009_served(db: Connection) -> None:
    # How an llms.txt document was served: 'html' (converted) or 'text' (Markdown / plain text);
    # NULL for files and older rows. A 200 answering an HTML page where 'text' was served
    # before is taken for an error page, and the last good copy is kept.
    db.execute("ALTER TABLE documents ADD COLUMN served TEXT")


@migration
def m010_repo_memory(db: Connection) -> None:
    # RepoMemory of repository documentation (issue 21), kept so a killed run resumes with
    # every committed unit kept: one row per run of one repository root, its units (the
    # component / module / package / repository documents, committed one transaction each),
    # the search cache of its READ actions and the trace of every action. JSON columns hold
    # lists (claims, depends_on, children) or objects (settings, scores, inputs, results).
    _script(
        db,
        """
        CREATE TABLE repo_runs (
            id INTEGER PRIMARY KEY,
            root TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            model TEXT,
            settings TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'finished', 'failed', 'abandoned'))
        );
        CREATE INDEX repo_runs_root ON repo_runs(root, status);
        CREATE TABLE repo_units (
            run_id INTEGER NOT NULL REFERENCES repo_runs(id) ON DELETE CASCADE,
            unit_id TEXT NOT NULL,
            ord INTEGER NOT NULL,
            granularity TEXT NOT NULL
                CHECK (granularity IN ('component', 'module', 'package', 'repository')),
            parent_id TEXT,
            content_hash TEXT NOT NULL,
            document TEXT,
            claims TEXT NOT NULL DEFAULT '[]',
            depends_on TEXT NOT NULL DEFAULT '[]',
            children TEXT NOT NULL DEFAULT '[]',
            scores TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'committed', 'failed')),
            error TEXT,
            model TEXT,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            committed_at TEXT,
            PRIMARY KEY (run_id, unit_id)
        );
        CREATE INDEX repo_units_status ON repo_units(run_id, status, ord);
        CREATE TABLE repo_search_cache (
            run_id INTEGER NOT NULL REFERENCES repo_runs(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            query TEXT NOT NULL,
            result TEXT NOT NULL,
            hits INTEGER NOT NULL DEFAULT 0,
            stored_at TEXT NOT NULL,
            UNIQUE (run_id, kind, query)
        );
        CREATE TABLE repo_trace (
            run_id INTEGER NOT NULL REFERENCES repo_runs(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            unit_id TEXT,
            action TEXT NOT NULL,
            inputs TEXT NOT NULL DEFAULT '{}',
            tokens INTEGER NOT NULL DEFAULT 0,
            seconds REAL NOT NULL DEFAULT 0,
            at TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
        );
        """,
    )


@migration
def m011_access_tokens(db: Connection) -> None:
    # `docmentor token create`: bearer tokens of `serve --transport http`, kept as the hex
    # SHA-256 of the token (never the token); scope is 'read' or 'write'; times are ISO 8601 UTC.
    _script(
        db,
        """
        CREATE TABLE access_tokens (
            name TEXT PRIMARY KEY,
            token_hash TEXT NOT NULL UNIQUE,
            scope TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT,
            last_used_at TEXT
        )
        """,
    )


@migration
def m012_source_version_origin(db: Connection) -> None:
    # Versioned sources (issue 23, part 5): where a source's version was read — "given"
    # (--version, docmentor.toml), "pyproject.toml", "package.json", "setup.cfg", "PKG-INFO", "llms.txt"
    # or "installed"; NULL when unknown (rows written before, or no version found).
    db.execute("ALTER TABLE sources ADD COLUMN version_origin TEXT")


@migration
def m013_jobs(db: Connection) -> None:
    # Work done once (store/jobs.py): refreshes and generations queued by any replica and
    # taken by one worker. JSON columns: args, result.
    _script(
        db,
        """
        CREATE TABLE jobs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            args TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
            dedupe TEXT,
            created_at TEXT NOT NULL,
            started_at TEXT,
            finished_at TEXT,
            heartbeat_at TEXT,
            worker TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            result TEXT,
            error TEXT
        );
        CREATE INDEX jobs_status ON jobs(status, id);
        CREATE INDEX jobs_dedupe ON jobs(dedupe, status)
        """,
    )


@migration
def m014_lexical_tables(db: Connection) -> None:
    # The lexical index of an index in PostgreSQL (store/lexical_tables.py); an embedded index
    # keeps it in tantivy's files and leaves these empty.
    _script(
        db,
        """
        CREATE TABLE lex_entries (
            key INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            source TEXT NOT NULL,
            document_id INTEGER NOT NULL,
            stored TEXT NOT NULL
        );
        CREATE INDEX lex_entries_document ON lex_entries(document_id);
        CREATE INDEX lex_entries_source ON lex_entries(source, kind);
        CREATE TABLE lex_lengths (
            key INTEGER NOT NULL,
            field TEXT NOT NULL,
            len INTEGER NOT NULL,
            PRIMARY KEY (key, field)
        );
        CREATE TABLE lex_postings (
            term TEXT NOT NULL,
            field TEXT NOT NULL,
            key INTEGER NOT NULL,
            tf INTEGER NOT NULL,
            len INTEGER NOT NULL
        );
        CREATE INDEX lex_postings_term ON lex_postings(term, field);
        CREATE INDEX lex_postings_key ON lex_postings(key)
        """,
    )


@migration
def m015_lexical_impact(db: Connection) -> None:
    # PostgreSQL's lexical tables at scale: each term's postings in order of the term's share
    # of the field (density), so a search reads a bounded number of them per term; and each
    # (term, field)'s document frequency kept, not counted per search. The index holds every
    # column a search reads of a posting (PostgreSQL reads it alone, not the table).
    _script(
        db,
        """
        ALTER TABLE lex_postings ADD COLUMN density REAL;
        UPDATE lex_postings SET density = CAST(tf AS REAL) / len WHERE len > 0;
        DROP INDEX IF EXISTS lex_postings_term;
        CREATE INDEX lex_postings_density ON lex_postings(term, field, density DESC, key, tf, len);
        CREATE TABLE lex_terms (
            term TEXT NOT NULL,
            field TEXT NOT NULL,
            df INTEGER NOT NULL,
            PRIMARY KEY (term, field)
        );
        INSERT INTO lex_terms SELECT term, field, COUNT(*) FROM lex_postings GROUP BY term, field
        """,
    )


@migration
def m016_lexical_postings_by_entry(db: Connection) -> None:
    # PostgreSQL's lexical tables at scale: a hybrid search scores the units found by meaning
    # exactly (every posting of theirs for the query's terms); by entry and term, read from
    # the index alone, that is a few rows per unit whatever the index's size (by term alone,
    # it was every posting of each common term). Dropping an entry finds its terms the same way.
    # The new index is built before the old one is dropped: dropping locks out readers until
    # the migration commits, building does not.
    _script(
        db,
        """
        CREATE INDEX lex_postings_entry ON lex_postings(key, term, field, tf, len);
        DROP INDEX IF EXISTS lex_postings_key
        """,
    )


@migration
def m017_lexical_top_postings(db: Connection) -> None:
    # PostgreSQL's lexical tables at scale: each (term, field)'s densest postings packed in
    # its lex_terms row, so a search reads one row per query term and field and sums the
    # scores itself (summing thousands of posting rows in SQL was most of a search's time).
    _script(
        db,
        """
        ALTER TABLE lex_terms ADD COLUMN top_keys BLOB;
        ALTER TABLE lex_terms ADD COLUMN top_tfs BLOB;
        ALTER TABLE lex_terms ADD COLUMN top_lens BLOB
        """,
    )  # committed on its own (the columns lock readers out until then): m019 fills them


@migration
def m018_vectors_by_rowid(db: Connection) -> None:
    # PostgreSQL: a search asks for the newest vector's rowid (have vectors been added since?);
    # SQLite answers from its rowid key, PostgreSQL's generated rowid needs an index (without
    # it, every search read every vector row: 3 ms at 5k vectors, linear in their number)
    if getattr(db, "copy_rows", None) is not None:
        db.execute("CREATE INDEX unit_vectors_rowid ON unit_vectors(rowid)")


@migration
def m019_lexical_top_postings_filled(db: Connection) -> None:
    # PostgreSQL: the kept postings (m017) of an index built before them. Readers go on
    # meanwhile (a term not kept yet is read from its postings, as it would have been kept).
    if getattr(db, "copy_rows", None) is not None:  # PostgreSQL's (the only lexical tables in use)
        from docmentor.store.lexical_tables import keep_top_postings

        keep_top_postings(db, "t.top_keys IS NULL")
