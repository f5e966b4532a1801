"""The one exception hierarchy. Boundaries (CLI, MCP) convert these once."""

from __future__ import annotations

from collections.abc import Iterable


class DocmentorError(Exception):
    """Base class for every error docmentor raises on purpose.

    ``hint`` says what the user (or the model) can try next. ``arguments`` are the names of
    the library arguments the message and hint mention, as the library's functions take them
    (``max_tokens``): the library describes arguments, each adapter names them its own way
    (the CLI says ``--max-tokens``, an MCP tool ``max_tokens``).
    """

    def __init__(self, message: str, *, hint: str | None = None, arguments: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.arguments = arguments

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"


class UsageError(DocmentorError):
    """The caller asked for something malformed (bad target, bad option value)."""


class NotFoundError(DocmentorError):
    """A named source, document or index does not exist."""


class SourceUnavailableError(DocmentorError):
    """A source could not be read (unreachable URL, missing folder); nothing stored was changed."""


class StoreError(DocmentorError):
    """The index on disk is unusable (corrupt, newer schema, locked for too long)."""


class IndexUnavailable(StoreError):
    """The index's database cannot be reached (PostgreSQL down, restarting, or the URL wrong):
    a server or worker that reached it before tries again later."""


# a failure of the moment (the disk, not the path given): exit 1; any other, the path's
_DEVICE_ERRNOS = frozenset({"ENOSPC", "EDQUOT", "EIO", "EFBIG", "EAGAIN"})


def cannot_write(path: object, exc: OSError) -> DocmentorError:
    """The error for an output file that could not be written: a :class:`UsageError` when
    the path given is at fault (a folder, a missing parent, no permission: as click's own
    file options say), a plain :class:`DocmentorError` when the device is (full, failing)."""
    import errno

    message = f"cannot write {path}: {exc.strerror or exc}"
    if exc.errno is not None and errno.errorcode.get(exc.errno) in _DEVICE_ERRNOS:
        return DocmentorError(message)
    return UsageError(message, hint="give a file path in a folder you can write to")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"did you mean 'x'? "`` for the choice spelled most like ``word`` (a typo), else ``""``:
    the start of a hint that goes on to list the choices."""
    import difflib

    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""
