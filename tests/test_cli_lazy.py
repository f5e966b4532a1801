"""The command line builds the command it runs, not every command (docmentor.cli.lazy)."""

from __future__ import annotations

import click
import pytest
import typer
import typer.main
from click.testing import CliRunner

from docmentor.cli import app, main
from docmentor.cli.lazy import LazyGroup, click_group


def _throwaway() -> tuple[typer.Typer, list[str]]:
    """A small app: two commands and a sub-app, each noting when typer reads its signature."""
    built: list[str] = []
    top = typer.Typer(cls=LazyGroup, add_completion=False, rich_markup_mode=None)

    class Noted(typer.core.TyperCommand):
        def __init__(self, **attrs: object) -> None:
            built.append(str(attrs["name"]))
            super().__init__(**attrs)  # type: ignore[arg-type]

    @top.callback()
    def _main(verbose: bool = False) -> None:
        """The throwaway tool."""

    @top.command(cls=Noted)
    def first(count: int = 1) -> None:
        """Print FIRST count times."""
        print("first " * count)

    @top.command(cls=Noted, name="second-one")
    def second() -> None:
        """Print SECOND."""
        print("second")

    sub = typer.Typer(add_completion=False)

    @sub.command(cls=Noted)
    def inner(word: str) -> None:
        """Echo WORD."""
        print(word)

    @sub.command(cls=Noted)
    def other() -> None:
        """Nothing."""

    top.add_typer(sub, name="sub", help="A sub-app.")
    return top, built


def test_a_run_builds_only_the_command_it_runs() -> None:
    top, built = _throwaway()
    group = click_group(top)
    assert built == []
    result = CliRunner().invoke(group, ["first", "--count", "2"])
    assert result.exit_code == 0, result.output
    assert result.output.split() == ["first", "first"]
    assert built == ["first"]
    result = CliRunner().invoke(group, ["sub", "inner", "hello"])
    assert (result.exit_code, result.output.strip()) == (0, "hello")
    assert built == ["first", "inner", "other"]  # a sub-app is built whole
    assert click_group(top) is group  # once a process


def test_help_and_a_misspelt_command_see_every_command_in_order() -> None:
    top, built = _throwaway()
    group = click_group(top)
    assert CliRunner().invoke(group, ["second-one"]).exit_code == 0  # built before the others
    result = CliRunner().invoke(group, ["--help"])
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == ["first", "second-one", "sub"]
    assert "Print SECOND." in result.output

    top, built = _throwaway()
    result = CliRunner().invoke(click_group(top), ["secnd-one"])
    assert result.exit_code == 2
    assert "Did you mean 'second-one'?" in result.output
    assert sorted(built) == ["first", "inner", "other", "second-one"]


def test_an_app_that_is_not_lazy_is_refused() -> None:
    plain = typer.Typer(add_completion=False)

    @plain.callback()
    def _main() -> None: ...

    @plain.command()
    def one() -> None: ...

    with pytest.raises(TypeError, match="cls=LazyGroup"):
        click_group(plain)


def _helps(group: click.Group, path: list[str], parent: click.Context | None = None) -> dict[str, str]:
    """``--help`` of ``group`` and of every command under it, by command path (each in a
    context as a run makes it: its settings, its parent's)."""
    ctx = click.Context(
        group, info_name=path[-1] if path else "docmentor", parent=parent, **group.context_settings
    )
    out = {" ".join(path): group.get_help(ctx)}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            out.update(_helps(command, [*path, name], ctx))
        else:
            sub = click.Context(command, info_name=name, parent=ctx, **command.context_settings)
            out[" ".join([*path, name])] = command.get_help(sub)
    return out


def _without_arguments(help_text: str) -> str:
    """A --help without its list of arguments (typer's "Arguments", click 8.5's "Positional
    arguments"): the lazy build gives arguments the help typer < 0.26 loses on click 8.3+."""
    kept: list[str] = []
    skipping = False
    for line in help_text.splitlines():
        if line in ("Arguments:", "Positional arguments:"):
            skipping = True
        elif skipping and line and not line.startswith(" "):
            skipping = False
        if not skipping:
            kept.append(line)
    return "\n".join(kept)


def test_docmentors_lazy_commands_are_typers_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command's help, built lazily, is what typer builds all at once (but for the
    arguments' list: test_every_argument_help_is_shown_once)."""
    monkeypatch.setenv("COLUMNS", "100")
    for run in (["sources", "--help"], ["readme-llm", "generate", "--help"]):
        assert main(run) == 0  # built (and their help shown) before the others
    eager = typer.main.get_command(app)
    assert isinstance(eager, click.Group)
    lazy = {k: _without_arguments(v) for k, v in _helps(click_group(app), []).items()}
    assert lazy == {k: _without_arguments(v) for k, v in _helps(eager, []).items()}
    assert len(lazy) > 30


def test_a_misspelt_command_is_told_its_close_names_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serch", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("Did you mean") == 1 and "'search', 'serve'" in err, err
    assert err.startswith("error: No such command 'serch'.") and err.count("\n") == 1
    assert main(["clarity", "scor"]) == 2
    err = capsys.readouterr().err
    assert err.count("Did you mean 'score'?") == 1, err


def _commands(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            out += _commands(command, ctx, (*path, name))
        elif command is not None:
            out.append((*path, name))
    return out


def test_every_argument_help_is_shown_once() -> None:
    """What each positional argument is, in every command's --help (click 8.3+ dropped the help
    typer < 0.26 gave arguments, and click 8.5 lists them a second time on its own)."""
    group = click_group(app)
    commands = _commands(group, click.Context(group))
    assert len(commands) > 30
    documented = 0
    for path in commands:
        command: click.Command | None = group
        for name in path:
            assert isinstance(command, click.Group)
            command = command.get_command(click.Context(command), name)
        assert command is not None
        text = CliRunner().invoke(group, [*path, "--help"], prog_name="docmentor").output
        assert "Positional arguments" not in text, path
        for param in command.params:
            if isinstance(param, typer.core.TyperArgument):
                assert param.help, (path, param.name)  # every argument says what it is
                first = " ".join(param.help.split()[:3])
                assert first in " ".join(text.split()), (path, param.name)
                documented += 1
    assert documented > 20
