"""Prerequisite coverage: a tutorial's examples import a package nobody told the reader to install.

A tutorial, quickstart or getting-started page (by path or title) whose Python examples
import a third-party package gets one ``missing_prerequisites`` issue listing the packages
that neither the page nor a page or section it links to about installing tells the
reader to install. Telling means naming the package in an install command (``pip
install``, ``python -m pip install``, ``uv add``, ``uv pip install``, ``poetry add``,
``conda``/``mamba install``, ``pdm``/``rye add``, ``pipx install``) or in a requirements
line (``httpx>=0.27`` in a code block; a quoted spec in a TOML ``dependencies`` list).
``pip install -r FILE`` installs what we cannot see, so it covers every package, and so
does a link about installing to a page that cannot be read here (another site).

Not gaps: standard library modules (``sys.stdlib_module_names``), private modules, and
the documented library's own package — named by the project files around the docs
folder (``pyproject.toml``, ``setup.cfg``, ``mkdocs.yml``, a package folder beside the
docs) or installed from the project itself (``pip install -e .``).

Import names are matched to distribution names generically: case, ``-``, ``_`` and ``.``
are the same; a distribution covers the modules ``py<name>``, ``python-<name>``,
``<name>-python`` or ``<name>s`` and any ``-``-separated part of its name (``google`` in
``google-cloud-storage``). A handful of well-known packages whose import name shares
nothing with the distribution's (``PIL`` / ``pillow``) are listed in ``IRREGULAR``.
"""

from __future__ import annotations

import bisect
import configparser
import functools
import posixpath
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

from docmentor.clarity.checks._page import page_of
from docmentor.clarity.checks._registry import check
from docmentor.clarity.checks.python import analyse, third_party
from docmentor.clarity.models import CheckedDocument, Issue

_TUTORIAL = re.compile(
    r"tutorial|getting[-_ ]?started|get[-_ ]started|quick[-_ ]?start|first[-_ ]steps", re.IGNORECASE
)
# an installer command; what follows it on the line (after joining ``\`` continuations) is read
# token by token. Linear: literal alternatives, then bounded runs of blanks.
_INSTALLER = re.compile(
    r"(?<![\w-])(?:python3?[ \t]+-m[ \t]+)?"
    r"(?:pip3?[ \t]+install|pipx[ \t]+install|uv[ \t]+pip[ \t]+install|uv[ \t]+add|poetry[ \t]+add"
    r"|(?:micro)?mamba[ \t]+install|conda[ \t]+install|pdm[ \t]+add|rye[ \t]+add)(?![\w-])",
    re.IGNORECASE,
)
_STOP = re.compile(r"&&|\|\||[;|#`)<>]")  # where a shell command ends (outside quotes)
_TOKEN = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+|[\"']")
_OPTION_WITH_VALUE = frozenset(
    {"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-c", "--constraint", "--channel",
     "--python", "-p", "--group", "-G", "--source", "--target", "-t", "--prefix", "-n", "--name"}
)  # fmt: skip
_REQUIREMENT_FILE_OPTIONS = frozenset({"-r", "--requirement", "--requirements"})
_EDITABLE = frozenset({"-e", "--editable"})
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# a requirements line: ``name[extras] <op> version`` (a bare name is too common in prose-like blocks)
_REQUIREMENT_LINE = re.compile(
    r"[ \t]*([A-Za-z0-9][A-Za-z0-9._-]*)[ \t]*(?:\[[^\]\n]*\])?[ \t]*(?:===?|>=|<=|~=|!=|<|>)"
)
_QUOTED_SPEC = re.compile(
    r"[\"']([A-Za-z0-9][A-Za-z0-9._-]*)[ \t]*(?:\[[^\]\"'\n]*\])?[ \t]*(?:[<>=!~;][^\"'\n]*)?[\"']"
)
_INSTALL_LINK = re.compile(r"install|prerequisite|requirement|setup|set-up|dependenc", re.IGNORECASE)
_PYTHON = frozenset({"python", "py", "python3", "pycon", "ipython", "pytb"})
_MAX_LINKED = 5  # linked install pages read per page
_MAX_BYTES = 1_000_000

# import name → distribution, only where no rule can derive one from the other
IRREGULAR = {
    "pil": "pillow",
    "bs4": "beautifulsoup4",
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "cv2": "opencv-python",
}


def normalise(name: str) -> str:
    """PEP 503 normal form: lower case, runs of ``-``, ``_`` and ``.`` as one ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def covers(distribution: str, module: str) -> bool:
    """Whether installing ``distribution`` plausibly provides the import ``module``."""
    d, m = normalise(distribution), normalise(module)
    if d == m or IRREGULAR.get(m) == d or d.startswith(IRREGULAR.get(m, "\0") + "-"):
        return True
    flat = d.replace("-", "")
    return (
        m in d.split("-")
        or flat == m.replace("-", "")
        or d in (f"py{m}", f"python-{m}", f"{m}-python", f"{m}s")
        or flat == f"py{m}"
    )


class Told:
    """What a text tells the reader to install: distribution names, or everything (``-r``)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.everything = False
        self.own_project = False  # ``pip install .`` / ``-e .``: the documented project itself

    def covers(self, module: str) -> bool:
        return self.everything or any(covers(n, module) for n in self.names)

    def read(self, text: str, code_blocks: list[tuple[str, str]]) -> None:
        """Install commands anywhere in ``text``; requirement lines in the non-Python blocks."""
        joined = re.sub(r"\\[ \t]*\r?\n", " ", text)
        # each command reads up to the end of its line or the next command (disjoint slices: linear)
        starts = [(m.start(), m.end()) for m in _INSTALLER.finditer(joined)]
        newlines = [i for i, c in enumerate(joined) if c == "\n"] if starts else []
        for k, (_, end) in enumerate(starts):
            nxt = starts[k + 1][0] if k + 1 < len(starts) else len(joined)
            at = bisect.bisect_left(newlines, end)
            stop = min(nxt, newlines[at] if at < len(newlines) else len(joined))
            self._command(joined[end:stop])
        for language, code in code_blocks:
            if language.lower() in _PYTHON:
                continue
            for line in code.split("\n"):
                req = _REQUIREMENT_LINE.match(line)
                if req:
                    self.names.add(req.group(1))
            if language.lower() == "toml" and re.search(r"depend|requires", code):
                self.names.update(q.group(1) for q in _QUOTED_SPEC.finditer(code))

    def _command(self, rest: str) -> None:
        tokens: list[str] = []
        for m in _TOKEN.finditer(rest):
            token = m.group(0)
            if token[0] in "\"'":
                tokens.append(token)
                continue
            stop = _STOP.search(token)
            if stop:
                if stop.start():
                    tokens.append(token[: stop.start()])
                break
            tokens.append(token)
        skip = False
        for k, token in enumerate(tokens):
            if skip:
                skip = False
                continue
            token = token.strip("\"'")
            if token.startswith("-"):
                option = token.split("=", 1)[0]
                if option in _REQUIREMENT_FILE_OPTIONS:
                    self.everything = True
                elif option in _EDITABLE:
                    value = (
                        token.split("=", 1)[1]
                        if "=" in token
                        else (tokens[k + 1] if k + 1 < len(tokens) else "")
                    )
                    self._package(value.strip("\"'"))
                    skip = "=" not in token
                elif option in _OPTION_WITH_VALUE and "=" not in token:
                    skip = True
                continue
            self._package(token)

    def _package(self, token: str) -> None:
        if not token:
            return
        if token in (".", "./") or token.startswith(("./", "../", "/", "file:")) or token.endswith("/"):
            self.own_project = True
            return
        if "://" in token:  # git+https://host/org/name.git, a wheel URL
            tail = token.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
            token = tail.removesuffix(".git").split("@", 1)[0]
        m = _NAME.match(token)
        if m:
            self.names.add(m.group(0))


def is_tutorial(doc: CheckedDocument) -> bool:
    """A tutorial, getting-started or quickstart page, by its path or title."""
    return bool(_TUTORIAL.search(doc.path) or _TUTORIAL.search(doc.parsed.title or ""))


@functools.lru_cache(maxsize=64)
def own_packages(root: Path) -> frozenset[str]:
    """Normalised names of the project the docs folder ``root`` documents.

    Read from the folder and its two parents: ``pyproject.toml`` (``[project]`` /
    ``[tool.poetry]`` name), ``setup.cfg`` (``[metadata] name``), ``mkdocs.yml``
    (``site_name``, ``repo_name``), and package folders (an ``__init__.py``) at that level
    or under ``src/``.
    """
    names: set[str] = set()
    folder = root.resolve()
    for here in [folder, *list(folder.parents)[:2]]:
        names |= _project_names(here)
    return frozenset(normalise(n) for n in names if n)


def _project_names(here: Path) -> set[str]:
    names: set[str] = set()
    try:
        pyproject = here / "pyproject.toml"
        if pyproject.is_file() and pyproject.stat().st_size < _MAX_BYTES:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8", errors="replace"))
            for table in (data.get("project"), data.get("tool", {}).get("poetry")):
                if isinstance(table, dict) and isinstance(table.get("name"), str):
                    names.add(table["name"])
        setup_cfg = here / "setup.cfg"
        if setup_cfg.is_file() and setup_cfg.stat().st_size < _MAX_BYTES:
            cfg = configparser.ConfigParser(interpolation=None)
            cfg.read_string(setup_cfg.read_text(encoding="utf-8", errors="replace"))
            if cfg.has_option("metadata", "name"):
                names.add(cfg.get("metadata", "name"))
        mkdocs = here / "mkdocs.yml"
        if mkdocs.is_file() and mkdocs.stat().st_size < _MAX_BYTES:
            for line in mkdocs.read_text(encoding="utf-8", errors="replace").split("\n"):
                m = re.match(r"(?:site_name|repo_name)[ \t]*:[ \t]*[\"']?([^\"'\n#]*)", line)
                if m:
                    value = m.group(1).strip().rsplit("/", 1)[-1]
                    if value and " " not in value.strip():
                        names.add(value.strip())
        for base in (here, here / "src"):
            if base.is_dir():
                names.update(p.parent.name for p in base.glob("*/__init__.py"))
    except (OSError, ValueError, configparser.Error, tomllib.TOMLDecodeError):
        pass
    return names


def _linked_install_pages(doc: CheckedDocument) -> Iterator[tuple[str, list[tuple[str, str]]] | None]:
    """Text and code blocks of the local pages this page links to about installing; ``None``
    for such a link that cannot be read here (another site, or no docs folder)."""
    from docmentor.clarity.checks.links import resolve_target
    from docmentor.parse.markdown import parse_markdown

    read = 0
    seen: set[str] = set()
    for link in doc.parsed.links:
        target = link.target.strip()
        if not target or target.startswith("mailto:"):
            continue
        if not (
            _INSTALL_LINK.search(link.text)
            or _INSTALL_LINK.search(target)
            or _INSTALL_LINK.search(link.anchor or "")
        ):
            continue
        if "://" in target or target.startswith("/") or doc.root is None:
            yield None  # an install page we cannot read here: trusted
            continue
        try:
            exists, md_file = resolve_target(doc, target.split("#", 1)[0])
        except Exception:
            continue
        if not exists or md_file is None or md_file in seen:
            continue
        seen.add(md_file)
        path = doc.root / md_file  # resolve_target found it under the root
        try:
            if path.stat().st_size > _MAX_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        parsed = parse_markdown(text, fallback_title=posixpath.basename(md_file))
        yield text, [(b.language, b.code) for s in parsed.sections for b in s.code_blocks]
        read += 1
        if read >= _MAX_LINKED:
            return


@check("prerequisites")
def missing_prerequisites(doc: CheckedDocument) -> Iterator[Issue]:
    """Tutorial / getting-started / quickstart pages whose Python code imports a third-party
    package that neither the page nor a linked install page tells the reader to install.

    Telling is an install command or a requirements line naming the package (see the
    module docstring); the standard library and the documented project's own package are
    no gap. One issue per page, at the first import of a package left untold.
    """
    if not is_tutorial(doc):
        return
    page = page_of(doc)
    packages: dict[str, tuple[int, int]] = {}  # module → (block index, content line)
    for ex in analyse(page):
        for module, line in ex.imports.items():
            if third_party(module):
                packages.setdefault(module, (ex.index, ex.content_offset(line)))
    if not packages:
        return
    told = Told()
    told.read(page.text, [(b.language, b.code) for b in page.code_blocks])
    own = own_packages(doc.root) if doc.root is not None else frozenset()
    untold = {
        m: at
        for m, at in packages.items()
        if not told.covers(m)
        and not any(covers(name, m) for name in own)
        and f"{m}.py" not in page.text  # a module the tutorial has the reader write (``main.py``)
    }
    if untold and not told.everything:
        for linked in _linked_install_pages(doc):
            if linked is None:
                told.everything = True
                break
            told.read(*linked)
        untold = {m: at for m, at in untold.items() if not told.covers(m)}
    if not untold or told.everything:
        return
    if told.own_project and len(untold) == 1:
        return  # ``pip install -e .``: the one import left is the project itself
    first = min(untold, key=lambda m: untold[m])
    index, offset = untold[first]
    names = sorted(untold)
    shown = ", ".join(f"`{m}`" for m in names)
    command = "pip install " + " ".join(IRREGULAR.get(normalise(m), m) for m in names)
    lines = page.code_blocks[index].code.split("\n")
    yield page.issue(
        type="missing_prerequisites",
        severity="warning",
        dimensions=["prerequisite_coverage"],
        line=page.code_line(index, offset),
        message=(
            f"The examples import {shown}, which neither this page nor a linked install page "
            "tells the reader to install"
        ),
        suggested_fix=f"Add a Prerequisites section before the first example: `{command}`.",
        quote=lines[offset] if 0 <= offset < len(lines) else "",
        effort="low",
    )
