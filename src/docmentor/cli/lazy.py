"""The command line's click group, built one command at a time.

typer turns every command's signature into click parameters when the program starts: for
docmentor's ~35 commands that was ~100 ms of each run (evaluating each annotation), half of a
CLI ``assemble`` call's time. :func:`click_group` builds the top-level group with only its
own options; each command or sub-app is built from its typer definition when a run first asks
for it, so a run builds the one it runs. ``--help`` and a misspelt command build them all
(the listing and the "did you mean" need every name and summary).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable

import click
import typer
import typer.main
from typer.core import TyperGroup


class LazyGroup(TyperGroup):
    """A typer group that builds a subcommand from :attr:`loaders` when it is first asked for.

    With no loaders (typer's own ``get_command`` builds every command up front) it is a plain
    :class:`typer.core.TyperGroup`.
    """

    def __init__(self, **attrs: object) -> None:
        super().__init__(**attrs)  # type: ignore[arg-type]
        self.loaders: dict[str, Callable[[], click.Command]] = {}

    def _load(self, name: str) -> None:
        loader = self.loaders.get(name)
        if loader is not None and name not in self.commands:
            self.commands[name] = loader()

    def _load_all(self) -> None:
        for name in self.loaders:
            self._load(name)
        order = [*self.loaders, *self.commands]
        self.commands = {name: self.commands[name] for name in dict.fromkeys(order)}

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command in registration order, whichever of them a run has built so far."""
        return list(self.loaders) + [name for name in self.commands if name not in self.loaders]

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in self.loaders and args[0] not in self.commands:
            self._load_all()  # not a command's name: typer's suggestion reads every name
        return super().resolve_command(ctx, args)


def _name(info: typer.models.CommandInfo) -> str:
    if info.name:
        return info.name
    assert info.callback is not None
    return typer.main.get_command_name(info.callback.__name__)


@functools.cache
def click_group(app: typer.Typer) -> LazyGroup:
    """``app`` as a click group whose commands are built when first used (once a process).

    ``app`` must be created with ``cls=LazyGroup`` and have every command registered.
    """
    top = copy.copy(app)
    top.registered_commands = []
    top.registered_groups = []
    group = typer.main.get_command(top)
    if not isinstance(group, LazyGroup):
        raise TypeError(f"{app.info.name!r} must be a typer.Typer(cls=LazyGroup)")
    for command in app.registered_commands:
        group.loaders[_name(command)] = functools.partial(_command, command, app)
    for sub in app.registered_groups:
        if not sub.name:
            raise TypeError("every sub-app of the command line is added with a name")
        group.loaders[sub.name] = functools.partial(_group, sub, app)
    return group


def _command(info: typer.models.CommandInfo, app: typer.Typer) -> click.Command:
    command = typer.main.get_command_from_info(
        info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode
    )
    _argument_help(command, info)
    return command


def _group(info: typer.models.TyperInfo, app: typer.Typer) -> click.Command:
    group = typer.main.get_group_from_info(
        info,
        pretty_exceptions_short=app.pretty_exceptions_short,
        rich_markup_mode=app.rich_markup_mode,
        suggest_commands=app.suggest_commands,
    )
    sub = info.typer_instance
    if sub is not None and isinstance(group, click.Group):
        for command in sub.registered_commands:
            built = group.commands.get(_name(command))
            if built is not None:
                _argument_help(built, command)
    return group


def _argument_help(command: click.Command, info: typer.models.CommandInfo) -> None:
    """Give the command's arguments the help their ``typer.Argument(help=…)`` says.

    typer < 0.26 sets an argument's help before calling click's ``Parameter.__init__``, which
    since click 8.3 sets ``help`` itself (to None, as typer passes none): ``--help`` then
    showed ``QUESTIONS  [required]`` without what QUESTIONS is. Read back from the signature.
    """
    if info.callback is None:
        return
    from typer.core import TyperArgument
    from typer.models import ArgumentInfo
    from typer.utils import get_params_from_function

    declared = get_params_from_function(info.callback)
    for param in command.params:
        meta = declared.get(param.name or "")
        if (
            isinstance(param, TyperArgument)
            and param.help is None
            and meta is not None
            and isinstance(meta.default, ArgumentInfo)
        ):
            param.help = meta.default.help
    # click 8.5 lists documented arguments itself ("Positional arguments"), after typer's
    # own "Arguments" section has: one list, typer's, as with the click releases before
    setattr(command, "format_arguments", _no_section)  # noqa: B010 - an instance's method


def _no_section(ctx: click.Context, formatter: click.HelpFormatter) -> None:
    return None
