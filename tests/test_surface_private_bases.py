"""A class whose private base is no class griffe can read (a module attribute bound to a
call's result) is loaded, and its members are open (drift never reports one missing)."""

from __future__ import annotations

from pathlib import Path

from docmentor.library.surface.api_python import load_api
from libtool import write_files


def test_a_private_base_bound_to_a_value_is_read_as_from_outside(tmp_path: Path) -> None:
    """setuptools' ``_Command = monkey.get_unpatched(distutils.core.Command)`` then ``class
    Command(_Command)``: the base is a module attribute, no class griffe can read, and loading
    the package failed (``'Attribute' object has no attribute 'resolved_bases'``, found by the
    review of this session). Its members are unknown, so the class is open."""
    write_files(
        tmp_path,
        {
            "cmds/__init__.py": '''
                """Commands."""

                import collections

                _Command = collections.UserDict


                class Command(_Command):
                    """A command."""

                    def run(self):
                        """Run it."""
            ''',
        },
    )
    by_id = {e.api_id: e for e in load_api("cmds", search_paths=[tmp_path]).entries}
    assert by_id["cmds.Command"].open_members
    assert "cmds.Command.run" in by_id
