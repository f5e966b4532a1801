"""docmentor: documentation that works for AI coding agents.

This namespace is the library: every public object is here, once, under one name (the
modules below it are internal; their layout may change). The CLI and the MCP server are
adapters over it.

- **docs engine** — :class:`Docmentor` (add / refresh / search / get / excerpt; a refresh's
  time limit :data:`DEFAULT_REFRESH_DEADLINE`; its ranking constants :class:`RankingConfig`)
  and what it returns: :class:`RefreshReport`, :class:`SearchHit`, :class:`DocPage`,
  :class:`DocExcerpts` (its ranges :data:`EXCERPT_CHUNKS_RANGE`, :data:`EXCERPT_CONTEXT_RANGE`),
  :class:`SourceInfo`, :class:`EmbedReport`, :class:`VersionScope` (which versions of a
  library answer: asked, pinned, newest); a report's warnings grouped for a reader
  (:func:`group_warnings` → :class:`ReportWarnings`); :class:`SourceSpec` (:class:`SourceOptions`);
  ``docmentor.toml`` through :func:`load_config` (its defaults for a source's options:
  :func:`with_defaults`);
  the index's default folder (:func:`default_db`), whether one holds an index
  (:func:`index_exists`, where: :func:`index_root`) and a first add that leaves none when it fails
  (:func:`index_removed_on_failure`), a ``NAME:TARGET`` source argument
  (:func:`split_named`), a MkDocs project's snippet folders (:func:`mkdocs_bases`).
- **background work** of a long-running process — :class:`RefreshScheduler`,
  :class:`BackgroundEmbedder`, :class:`UnindexedSources`, :func:`configured_sources` (those not
  indexed yet: :func:`not_indexed_yet`; the one a name names: :func:`configured_named`); one
  refresh as every caller runs it, :func:`refresh_pass`.
- **assembly** — :func:`assemble_context` (an engine and one question) returns a :class:`Digest`
  (:class:`DocumentScore`, :class:`DistilledSection`); its budget range :data:`MAX_TOKENS_RANGE`.
- **library knowledge** — :func:`generate` (:class:`GenerationResult`);
  :class:`LibraryKnowledge` (its ranking constants :class:`ApiRankingConfig`; find_api:
  :class:`FoundApis` of :class:`ApiMatch`; get_examples:
  :class:`FoundExamples` of :class:`ExampleMatch`; overview: :class:`LibraryOverview`); the
  registered knowledge
  bases: :func:`knowledge_bases` (:class:`KbRow`), :func:`remove_knowledge_base`
  (:class:`RemovedKnowledgeBase`), :func:`drift_report` (:class:`DriftReport` of
  :class:`DriftFinding`); feedback: :func:`report_issue` (:class:`LoggedIssue`),
  :class:`SessionLog` (:class:`ToolCall`), :func:`analyze_feedback` (:class:`FeedbackAnalysis`:
  :class:`FeedbackSummary`, :class:`FailingQuery`, :class:`UnclearApi`, :class:`SearchQuality`),
  :func:`feedback_report`.
- **clarity** — :func:`score_text`, :func:`score_paths`, :func:`score_source`,
  :func:`score_document` (:class:`ReadPolicy`) and what they return: :class:`ClarityReport`
  (:class:`ClaritySummary`; its gate: :class:`ClarityGate`) of :class:`DocumentClarity`
  (:class:`DimensionEvaluation`, :class:`ClarityIssue`, :class:`ContentMetrics`); the formula
  (:func:`calculate_clarity_score` → :class:`ClarityScore` of :class:`ScorePenalty`,
  :func:`calculate_dimension_score` → :class:`DimensionScore`, :data:`SCORING_VERSION`),
  :func:`explain_score` (:class:`ScoreExplanation`, :class:`ContentPenalty`), the rubric (:class:`Rubric`,
  :func:`default_rubric`, :func:`load_rubric`), the roadmap (:func:`get_improvement_roadmap`
  → :class:`Roadmap` of :class:`PlannedFix`, :class:`QuickWin`), history (:func:`record_history`,
  :func:`trend_summary`, :class:`TrendSummary`, :func:`git_commit`, :func:`scored_commit`),
  :func:`write_html`; the optional LLM finder's client (:class:`LLMClient`, :class:`LLMConfig`).
- **evaluation** — :func:`load_questions`, :func:`check_labels`, :func:`evaluate_search`,
  :func:`evaluate_assemble`, :func:`evaluate_api` (:class:`SearchRun`, :class:`Labels`,
  :class:`AssembleEval`, :class:`ApiEval`); :func:`parse_minimums` and :func:`below_minimums`
  hold a run to minimum figures (a CI gate).
- **repository documentation** (being built) — :func:`generate_repo_docs`
  (:class:`RepoDocsGeneration`) does a whole generation, with or without a model, the tree
  written and indexed; its parts: :func:`document_repository`
  (:class:`RepoDocsResult`; an output folder it will not replace: :class:`RepoDocsOutputError`),
  :func:`run_agent` (:class:`AgentConfig`, :class:`RunReport`), :func:`write_agent_tree`
  (:class:`AgentTreeResult`) writes a run's documents as the same tree, what the index holds of a
  repository's runs: :func:`repo_run_status` (:class:`RepoRunStatus`), :func:`repo_unit_document`;
  :func:`evaluate_repo_docs` (:class:`RepoDocsEvaluation`) scores a written tree against the
  code (with a model configured, it also has it judge truthfulness and helpfulness);
  :func:`register_repo_docs` (:class:`RepoDocsSource`) indexes the tree as a docs source,
  :class:`RepoDocsJobs` runs generations with a model in background threads;
  :func:`repo_docs_progress` (:class:`RepoDocsProgress`) and :func:`repo_docs_unit`
  (:class:`RepoDocsUnit`) read the latest documentation, tree or run.
- **serving over HTTP** — bearer tokens kept in the index: :func:`create_token`
  (:class:`CreatedToken`, shown once), :func:`list_tokens` (:class:`TokenInfo`),
  :func:`revoke_token`, :func:`verify_token` (:class:`Principal`, or :class:`TokenRejected`),
  :func:`has_tokens`, :func:`record_token_use` (:data:`TOKEN_PREFIX`, :data:`TOKEN_SCOPES`); an
  OAuth issuer's JWTs: :class:`OAuthVerifier` (:class:`OAuthConfig`); one server's check of
  both, :class:`Authenticator`; a load balancer's readiness check, :func:`index_ready`
  (:class:`Readiness`).
- **work done once** — jobs queued in the index and done by workers: :func:`queue_job`
  (:data:`JOB_KINDS`), :func:`list_jobs`, :func:`get_job`, :func:`wait_for_job` (:class:`JobRow`),
  :func:`run_worker`, :func:`run_one_job`, :func:`worker_name`.
- **errors** — :class:`DocmentorError` and its subclasses :class:`UsageError`,
  :class:`NotFoundError`, :class:`SourceUnavailableError`, :class:`StoreError` (and its
  :class:`IndexUnavailable`: the database cannot be reached now);
  :func:`cannot_write` says which one an output file that could not be written is.

Names are resolved on first use (``__getattr__``), so ``import docmentor`` — and
``docmentor --help`` — load none of the engine, tantivy or the embedding model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name → the module that defines it (the object's ``__module__``; for a constant,
#: the module whose attribute it is)
_EXPORTS: dict[str, str] = {
    # docs engine
    "Docmentor": "docmentor.engine",
    "RankingConfig": "docmentor.search.config",
    "DEFAULT_REFRESH_DEADLINE": "docmentor.config",
    "RefreshReport": "docmentor.engine.reports",
    "DocPage": "docmentor.engine.reports",
    "DocExcerpts": "docmentor.engine.reports",
    "EXCERPT_CHUNKS_RANGE": "docmentor.engine.lookup",
    "EXCERPT_CONTEXT_RANGE": "docmentor.engine.lookup",
    "MAX_RESULTS": "docmentor.config",
    "SourceInfo": "docmentor.engine.reports",
    "VersionScope": "docmentor.engine.scope",
    "ReportWarnings": "docmentor.engine.report_warnings",
    "group_warnings": "docmentor.engine.report_warnings",
    "EmbedReport": "docmentor.search.semantic",
    "SearchHit": "docmentor.models",
    "SourceSpec": "docmentor.models",
    "SourceOptions": "docmentor.models",
    "ConfiguredSource": "docmentor.config",
    "Config": "docmentor.config",
    "load_config": "docmentor.config",
    "with_defaults": "docmentor.config",
    "default_db": "docmentor.config",
    "index_exists": "docmentor.engine.core",
    "index_removed_on_failure": "docmentor.engine.core",
    "index_root": "docmentor.engine.core",
    "split_named": "docmentor.config",
    "mkdocs_bases": "docmentor.sources.mkdocs",
    # a long-running process's background work (``docmentor serve``)
    "RefreshScheduler": "docmentor.scheduler",
    "BackgroundEmbedder": "docmentor.scheduler",
    "UnindexedSources": "docmentor.scheduler",
    "configured_sources": "docmentor.scheduler",
    "configured_named": "docmentor.scheduler",
    "not_indexed_yet": "docmentor.scheduler",
    "refresh_pass": "docmentor.scheduler",
    # assembly
    "assemble_context": "docmentor.assemble",
    "Digest": "docmentor.assemble.models",
    "DocumentScore": "docmentor.assemble.models",
    "DistilledSection": "docmentor.assemble.models",
    "MAX_TOKENS_RANGE": "docmentor.assemble",
    # library knowledge
    "generate": "docmentor.library.pipeline",
    "GenerationResult": "docmentor.library.pipeline",
    "LibraryKnowledge": "docmentor.library.service.service",
    "ApiRankingConfig": "docmentor.library.find.config",
    "FoundApis": "docmentor.library.service.results",
    "ApiMatch": "docmentor.library.service.results",
    "FoundExamples": "docmentor.library.service.results",
    "ExampleMatch": "docmentor.library.service.results",
    "LibraryOverview": "docmentor.library.service.results",
    "knowledge_bases": "docmentor.library.service.registry",
    "remove_knowledge_base": "docmentor.library.service.registry",
    "RemovedKnowledgeBase": "docmentor.library.service.registry",
    "drift_report": "docmentor.library.service.registry",
    "DriftReport": "docmentor.library.examples.drift",
    "DriftFinding": "docmentor.library.examples.drift",
    "KbRow": "docmentor.store.kb",
    "report_issue": "docmentor.library.service.feedback",
    "SessionLog": "docmentor.library.service.feedback",
    "analyze_feedback": "docmentor.library.service.feedback",
    "feedback_report": "docmentor.library.service.feedback",
    "LoggedIssue": "docmentor.library.service.results",
    "ToolCall": "docmentor.library.service.results",
    "FeedbackAnalysis": "docmentor.library.service.results",
    "FeedbackSummary": "docmentor.library.service.results",
    "FailingQuery": "docmentor.library.service.results",
    "UnclearApi": "docmentor.library.service.results",
    "SearchQuality": "docmentor.library.service.results",
    # clarity
    "score_text": "docmentor.clarity",
    "score_paths": "docmentor.clarity",
    "score_source": "docmentor.clarity",
    "score_document": "docmentor.access",
    "ReadPolicy": "docmentor.access",
    "ClarityReport": "docmentor.clarity.results",
    "ClaritySummary": "docmentor.clarity.results",
    "ClarityGate": "docmentor.clarity.results",
    "DocumentClarity": "docmentor.clarity.results",
    "DimensionEvaluation": "docmentor.clarity.results",
    "ClarityIssue": "docmentor.clarity.models",
    "ContentMetrics": "docmentor.clarity.models",
    "calculate_clarity_score": "docmentor.clarity.scoring",
    "ClarityScore": "docmentor.clarity.scoring",
    "ScorePenalty": "docmentor.clarity.scoring",
    "calculate_dimension_score": "docmentor.clarity.scoring",
    "DimensionScore": "docmentor.clarity.scoring",
    "explain_score": "docmentor.clarity.explain",
    "ScoreExplanation": "docmentor.clarity.explain",
    "ContentPenalty": "docmentor.clarity.explain",
    "SCORING_VERSION": "docmentor.clarity.rubric",
    "Rubric": "docmentor.clarity.rubric",
    "default_rubric": "docmentor.clarity.rubric",
    "load_rubric": "docmentor.clarity.rubric",
    "get_improvement_roadmap": "docmentor.clarity.roadmap",
    "Roadmap": "docmentor.clarity.roadmap",
    "PlannedFix": "docmentor.clarity.roadmap",
    "QuickWin": "docmentor.clarity.roadmap",
    "record_history": "docmentor.clarity.history",
    "trend_summary": "docmentor.clarity.history",
    "TrendSummary": "docmentor.clarity.history",
    "ScoreChange": "docmentor.clarity.history",
    "write_html": "docmentor.clarity.report",
    "git_commit": "docmentor.clarity.report",
    "scored_commit": "docmentor.clarity",
    "LLMClient": "docmentor.llm",
    "LLMConfig": "docmentor.llm.config",
    # evaluation
    "load_questions": "docmentor.evaluation",
    "check_labels": "docmentor.evaluation",
    "evaluate_search": "docmentor.evaluation",
    "evaluate_assemble": "docmentor.evaluation",
    "evaluate_api": "docmentor.evaluation",
    "parse_minimums": "docmentor.evaluation",
    "below_minimums": "docmentor.evaluation",
    "SearchRun": "docmentor.evaluation",
    "Labels": "docmentor.evaluation",
    "AssembleEval": "docmentor.evaluation",
    "ApiEval": "docmentor.evaluation",
    # repository documentation
    "document_repository": "docmentor.repodocs.generate",
    "RepoDocsResult": "docmentor.repodocs.generate",
    "write_agent_tree": "docmentor.repodocs.agent_tree",
    "AgentTreeResult": "docmentor.repodocs.agent_tree",
    "RepoDocsOutputError": "docmentor.repodocs.output",
    "run_agent": "docmentor.repodocs.agent",
    "AgentConfig": "docmentor.repodocs.agent_results",
    "RunReport": "docmentor.repodocs.agent_results",
    "repo_run_status": "docmentor.repodocs.runs",
    "RepoRunStatus": "docmentor.repodocs.runs",
    "repo_unit_document": "docmentor.repodocs.runs",
    "register_repo_docs": "docmentor.repodocs.serve",
    "RepoDocsJobs": "docmentor.repodocs.jobs",
    "generate_repo_docs": "docmentor.repodocs.generation",
    "RepoDocsGeneration": "docmentor.repodocs.generation",
    "RepoDocsSource": "docmentor.repodocs.serve",
    "repo_docs_progress": "docmentor.repodocs.serve",
    "RepoDocsProgress": "docmentor.repodocs.serve",
    "repo_docs_unit": "docmentor.repodocs.serve",
    "RepoDocsUnit": "docmentor.repodocs.serve",
    "evaluate_repo_docs": "docmentor.repodocs.evaluate",
    "RepoDocsEvaluation": "docmentor.repodocs.evaluate",
    # serving over HTTP: who may (tokens, OAuth) and readiness
    "create_token": "docmentor.auth.tokens",
    "list_tokens": "docmentor.auth.tokens",
    "revoke_token": "docmentor.auth.tokens",
    "verify_token": "docmentor.auth.tokens",
    "has_tokens": "docmentor.auth.tokens",
    "record_token_use": "docmentor.auth.tokens",
    "TokenInfo": "docmentor.auth.tokens",
    "CreatedToken": "docmentor.auth.tokens",
    "TOKEN_PREFIX": "docmentor.auth.tokens",
    "TOKEN_SCOPES": "docmentor.auth.principal",
    # work done once: the job table and its workers
    "JOB_KINDS": "docmentor.worker",
    "queue_job": "docmentor.worker",
    "list_jobs": "docmentor.worker",
    "get_job": "docmentor.worker",
    "wait_for_job": "docmentor.worker",
    "run_worker": "docmentor.worker",
    "run_one_job": "docmentor.worker",
    "worker_name": "docmentor.worker",
    "JobRow": "docmentor.store.jobs",
    "Principal": "docmentor.auth.principal",
    "TokenRejected": "docmentor.auth.principal",
    "OAuthConfig": "docmentor.auth.oauth",
    "OAuthVerifier": "docmentor.auth.oauth",
    "Authenticator": "docmentor.auth.guard",
    "index_ready": "docmentor.auth.health",
    "Readiness": "docmentor.auth.health",
    # errors
    "DocmentorError": "docmentor.errors",
    "UsageError": "docmentor.errors",
    "NotFoundError": "docmentor.errors",
    "SourceUnavailableError": "docmentor.errors",
    "StoreError": "docmentor.errors",
    "IndexUnavailable": "docmentor.errors",
    "cannot_write": "docmentor.errors",
}
#: public name → the name it has in its module, where the two differ (a generic name there)
_RENAMED: dict[str, str] = {
    "analyze_feedback": "analyze",
    "assemble_context": "assemble",  # docmentor.assemble is the package
    "feedback_report": "report_text",
    "ClarityIssue": "Issue",
    "ScorePenalty": "Penalty",
    "RepoDocsOutputError": "OutputError",
    "evaluate_repo_docs": "evaluate_docs",
}

#: the public names, as listed in ``_EXPORTS`` (tests/test_public_api.py checks the two agree)
__all__ = [
    "DEFAULT_REFRESH_DEADLINE",
    "EXCERPT_CHUNKS_RANGE",
    "EXCERPT_CONTEXT_RANGE",
    "JOB_KINDS",
    "MAX_RESULTS",
    "MAX_TOKENS_RANGE",
    "SCORING_VERSION",
    "TOKEN_PREFIX",
    "TOKEN_SCOPES",
    "AgentConfig",
    "AgentTreeResult",
    "ApiEval",
    "ApiMatch",
    "ApiRankingConfig",
    "AssembleEval",
    "Authenticator",
    "BackgroundEmbedder",
    "ClarityGate",
    "ClarityIssue",
    "ClarityReport",
    "ClarityScore",
    "ClaritySummary",
    "Config",
    "ConfiguredSource",
    "ContentMetrics",
    "ContentPenalty",
    "CreatedToken",
    "Digest",
    "DimensionEvaluation",
    "DimensionScore",
    "DistilledSection",
    "DocExcerpts",
    "DocPage",
    "Docmentor",
    "DocmentorError",
    "DocumentClarity",
    "DocumentScore",
    "DriftFinding",
    "DriftReport",
    "EmbedReport",
    "ExampleMatch",
    "FailingQuery",
    "FeedbackAnalysis",
    "FeedbackSummary",
    "FoundApis",
    "FoundExamples",
    "GenerationResult",
    "IndexUnavailable",
    "JobRow",
    "KbRow",
    "LLMClient",
    "LLMConfig",
    "Labels",
    "LibraryKnowledge",
    "LibraryOverview",
    "LoggedIssue",
    "NotFoundError",
    "OAuthConfig",
    "OAuthVerifier",
    "PlannedFix",
    "Principal",
    "QuickWin",
    "RankingConfig",
    "ReadPolicy",
    "Readiness",
    "RefreshReport",
    "RefreshScheduler",
    "RemovedKnowledgeBase",
    "RepoDocsEvaluation",
    "RepoDocsGeneration",
    "RepoDocsJobs",
    "RepoDocsOutputError",
    "RepoDocsProgress",
    "RepoDocsResult",
    "RepoDocsSource",
    "RepoDocsUnit",
    "RepoRunStatus",
    "ReportWarnings",
    "Roadmap",
    "Rubric",
    "RunReport",
    "ScoreChange",
    "ScoreExplanation",
    "ScorePenalty",
    "SearchHit",
    "SearchQuality",
    "SearchRun",
    "SessionLog",
    "SourceInfo",
    "SourceOptions",
    "SourceSpec",
    "SourceUnavailableError",
    "StoreError",
    "TokenInfo",
    "TokenRejected",
    "ToolCall",
    "TrendSummary",
    "UnclearApi",
    "UnindexedSources",
    "UsageError",
    "VersionScope",
    "__version__",
    "analyze_feedback",
    "assemble_context",
    "below_minimums",
    "calculate_clarity_score",
    "calculate_dimension_score",
    "cannot_write",
    "check_labels",
    "configured_named",
    "configured_sources",
    "create_token",
    "default_db",
    "default_rubric",
    "document_repository",
    "drift_report",
    "evaluate_api",
    "evaluate_assemble",
    "evaluate_repo_docs",
    "evaluate_search",
    "explain_score",
    "feedback_report",
    "generate",
    "generate_repo_docs",
    "get_improvement_roadmap",
    "get_job",
    "git_commit",
    "group_warnings",
    "has_tokens",
    "index_exists",
    "index_ready",
    "index_removed_on_failure",
    "index_root",
    "knowledge_bases",
    "list_jobs",
    "list_tokens",
    "load_config",
    "load_questions",
    "load_rubric",
    "mkdocs_bases",
    "not_indexed_yet",
    "parse_minimums",
    "queue_job",
    "record_history",
    "record_token_use",
    "refresh_pass",
    "register_repo_docs",
    "remove_knowledge_base",
    "repo_docs_progress",
    "repo_docs_unit",
    "repo_run_status",
    "repo_unit_document",
    "report_issue",
    "revoke_token",
    "run_agent",
    "run_one_job",
    "run_worker",
    "score_document",
    "score_paths",
    "score_source",
    "score_text",
    "scored_commit",
    "split_named",
    "trend_summary",
    "verify_token",
    "wait_for_job",
    "with_defaults",
    "worker_name",
    "write_agent_tree",
    "write_html",
]

if TYPE_CHECKING:
    from docmentor.access import ReadPolicy, score_document
    from docmentor.assemble import MAX_TOKENS_RANGE
    from docmentor.assemble import assemble as assemble_context
    from docmentor.assemble.models import Digest, DistilledSection, DocumentScore
    from docmentor.auth.guard import Authenticator
    from docmentor.auth.health import Readiness, index_ready
    from docmentor.auth.oauth import OAuthConfig, OAuthVerifier
    from docmentor.auth.principal import TOKEN_SCOPES, Principal, TokenRejected
    from docmentor.auth.tokens import (
        TOKEN_PREFIX,
        CreatedToken,
        TokenInfo,
        create_token,
        has_tokens,
        list_tokens,
        record_token_use,
        revoke_token,
        verify_token,
    )
    from docmentor.clarity import score_paths, score_source, score_text, scored_commit
    from docmentor.clarity.explain import ContentPenalty, ScoreExplanation, explain_score
    from docmentor.clarity.history import ScoreChange, TrendSummary, record_history, trend_summary
    from docmentor.clarity.models import ContentMetrics
    from docmentor.clarity.models import Issue as ClarityIssue
    from docmentor.clarity.report import git_commit, write_html
    from docmentor.clarity.results import (
        ClarityGate,
        ClarityReport,
        ClaritySummary,
        DimensionEvaluation,
        DocumentClarity,
    )
    from docmentor.clarity.roadmap import PlannedFix, QuickWin, Roadmap, get_improvement_roadmap
    from docmentor.clarity.rubric import SCORING_VERSION, Rubric, default_rubric, load_rubric
    from docmentor.clarity.scoring import (
        ClarityScore,
        DimensionScore,
        calculate_clarity_score,
        calculate_dimension_score,
    )
    from docmentor.clarity.scoring import Penalty as ScorePenalty
    from docmentor.config import (
        DEFAULT_REFRESH_DEADLINE,
        Config,
        ConfiguredSource,
        default_db,
        load_config,
        split_named,
        with_defaults,
    )
    from docmentor.engine import DocExcerpts, Docmentor, DocPage, RefreshReport, SourceInfo
    from docmentor.engine.core import index_exists, index_removed_on_failure, index_root
    from docmentor.engine.lookup import EXCERPT_CHUNKS_RANGE, EXCERPT_CONTEXT_RANGE
    from docmentor.engine.report_warnings import ReportWarnings, group_warnings
    from docmentor.engine.scope import VersionScope
    from docmentor.errors import (
        DocmentorError,
        IndexUnavailable,
        NotFoundError,
        SourceUnavailableError,
        StoreError,
        UsageError,
        cannot_write,
    )
    from docmentor.evaluation import (
        ApiEval,
        AssembleEval,
        Labels,
        SearchRun,
        below_minimums,
        check_labels,
        evaluate_api,
        evaluate_assemble,
        evaluate_search,
        load_questions,
        parse_minimums,
    )
    from docmentor.library import GenerationResult, generate
    from docmentor.library.examples.drift import DriftFinding, DriftReport
    from docmentor.library.find.config import ApiRankingConfig
    from docmentor.library.service.feedback import SessionLog, report_issue
    from docmentor.library.service.feedback import analyze as analyze_feedback
    from docmentor.library.service.feedback import report_text as feedback_report
    from docmentor.library.service.registry import (
        RemovedKnowledgeBase,
        drift_report,
        knowledge_bases,
        remove_knowledge_base,
    )
    from docmentor.library.service.results import (
        ApiMatch,
        ExampleMatch,
        FailingQuery,
        FeedbackAnalysis,
        FeedbackSummary,
        FoundApis,
        FoundExamples,
        LibraryOverview,
        LoggedIssue,
        SearchQuality,
        ToolCall,
        UnclearApi,
    )
    from docmentor.library.service.service import LibraryKnowledge
    from docmentor.llm import LLMClient
    from docmentor.llm.config import LLMConfig
    from docmentor.models import SearchHit, SourceOptions, SourceSpec
    from docmentor.repodocs.agent import run_agent
    from docmentor.repodocs.agent_results import AgentConfig, RunReport
    from docmentor.repodocs.agent_tree import AgentTreeResult, write_agent_tree
    from docmentor.repodocs.evaluate import RepoDocsEvaluation
    from docmentor.repodocs.evaluate import evaluate_docs as evaluate_repo_docs
    from docmentor.repodocs.generate import RepoDocsResult, document_repository
    from docmentor.repodocs.generation import RepoDocsGeneration, generate_repo_docs
    from docmentor.repodocs.jobs import RepoDocsJobs
    from docmentor.repodocs.output import OutputError as RepoDocsOutputError
    from docmentor.repodocs.runs import RepoRunStatus, repo_run_status, repo_unit_document
    from docmentor.repodocs.serve import (
        RepoDocsProgress,
        RepoDocsSource,
        RepoDocsUnit,
        register_repo_docs,
        repo_docs_progress,
        repo_docs_unit,
    )
    from docmentor.scheduler import (
        BackgroundEmbedder,
        RefreshScheduler,
        UnindexedSources,
        configured_named,
        configured_sources,
        not_indexed_yet,
        refresh_pass,
    )
    from docmentor.search.config import RankingConfig
    from docmentor.search.semantic import EmbedReport
    from docmentor.sources.mkdocs import mkdocs_bases
    from docmentor.store.jobs import JobRow
    from docmentor.store.kb import KbRow
    from docmentor.worker import (
        JOB_KINDS,
        get_job,
        list_jobs,
        queue_job,
        run_one_job,
        run_worker,
        wait_for_job,
        worker_name,
    )


def __getattr__(name: str) -> Any:  # lazy: keep `import docmentor` (and --help) light
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'docmentor' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    globals()[name] = value  # resolved once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
