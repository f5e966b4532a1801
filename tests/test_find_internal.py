"""find_api and get_examples read the surface's facts about what users call (issue 22,
defects 3 and 6): internals, instance attributes and CLI command objects weigh less than the
public function that does the job, each by its ApiRankingConfig field; on a throwaway package
read by the real surface (griffe, and the command probe's import)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from docmentor.library.examples.matcher import match_examples
from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.find.roles import asks_for_command, is_data, role_weights
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.api_python import ApiSurface, load_api
from libtool import write_files

# a table tool: the public function `add` does the job; an unpublished helper, an
# unpublished constant, a marker class, an instance attribute and a CLI command object all
# say more of a task's words than it does
PACKAGE = {
    "tbl/__init__.py": """
        '''Tables of rows.'''
        from tbl.core import Table, add
        __all__ = ["Table", "add"]
    """,
    "tbl/core.py": """
        '''Tables.'''

        class Table:
            '''A table of rows.'''
            def __init__(self, name):
                self.rows_inserted_into_table = 0

        def add(table, rows):
            '''Insert rows into a table.'''

        def insert_rows_into_table_checked(rows):
            '''Insert rows into a table, checked: insert rows into table.'''

        INSERT_ROWS_INTO_TABLE = {"insert": "rows", "into": "table"}

        class InsertRowsIntoTable:
            '''Insert rows into a table (a marker).'''
    """,
    "tbl/cli.py": """
        '''The command line.'''

        class Command:
            def __init__(self, fn):
                self.fn = fn
                self.__doc__ = fn.__doc__
            def main(self, args=None):
                return self.fn()

        def command(fn):
            return Command(fn)

        @command
        def insert_rows_into_table_command(path):
            '''Insert rows into a table: insert the rows of a file into a table.'''
    """,
}

TASK = "insert rows into a table"
HELPER = "tbl.core.insert_rows_into_table_checked"
CONSTANT = "tbl.core.INSERT_ROWS_INTO_TABLE"
MARKER = "tbl.core.InsertRowsIntoTable"
INSTANCE = "tbl.core.Table.rows_inserted_into_table"
COMMAND = "tbl.cli.insert_rows_into_table_command"
PUBLIC = "tbl.core.add"


@pytest.fixture(scope="module")
def surface(tmp_path_factory: pytest.TempPathFactory) -> ApiSurface:
    root = tmp_path_factory.mktemp("pkg")
    write_files(root, PACKAGE)
    return load_api("tbl", search_paths=[root])


def _entries(surface: ApiSurface) -> list[ApiEntry]:
    return [e.model_copy(deep=True) for e in surface.entries]


def _ranks(entries: list[ApiEntry], task: str, config: ApiRankingConfig, limit: int = 20) -> dict[str, int]:
    hits = ApiIndex({"tbl": (entries, [])}, config=config).find(task, limit=limit)
    return {h.entry.api_id: r for r, h in enumerate(hits, 1)}


def test_the_surface_gives_the_fixture_its_facts(surface: ApiSurface) -> None:
    facts = {
        api: (e.internal, e.instance_attribute, e.command, e.kind)
        for api in (HELPER, CONSTANT, MARKER, INSTANCE, COMMAND, PUBLIC)
        if (e := surface.by_id.get(api)) is not None
    }
    assert facts == {
        HELPER: ("helper", False, None, "function"),
        CONSTANT: ("constant", False, None, "attribute"),
        MARKER: ("marker", False, None, "class"),
        INSTANCE: (None, True, None, "attribute"),
        COMMAND: ("helper", False, "tbl.cli.Command", "attribute"),  # weighed as a command only
        PUBLIC: (None, False, None, "function"),
    }


def test_unweighed_the_internals_outrank_the_public_function(surface: ApiSurface) -> None:
    """The fixture's point: by its words alone every fact's API comes first."""
    flat = DEFAULT.replace(
        attribute_weight=1.0,
        internal_weight=1.0,
        instance_attribute_weight=1.0,
        command_weight=1.0,
        secondary_weight=1.0,
    )
    ranks = _ranks(_entries(surface), TASK, flat)
    for api in (HELPER, CONSTANT, MARKER, INSTANCE, COMMAND):
        assert ranks[api] < ranks[PUBLIC], (api, ranks)


def test_a_helper_constant_or_marker_ranks_below_the_public_function_by_the_config(
    surface: ApiSurface,
) -> None:
    config = DEFAULT.replace(internal_weight=0.2, instance_attribute_weight=0.2, command_weight=0.2)
    ranks = _ranks(_entries(surface), TASK, config)
    assert min(ranks, key=ranks.__getitem__) == PUBLIC, ranks
    for api in (HELPER, CONSTANT, MARKER, INSTANCE, COMMAND):
        assert ranks[api] > ranks[PUBLIC], (api, ranks)
    # one field at a time: only what it names moves
    only_internal = _ranks(_entries(surface), TASK, DEFAULT.replace(internal_weight=0.2, command_weight=1.0))
    assert only_internal[HELPER] > only_internal[PUBLIC] and only_internal[MARKER] > only_internal[PUBLIC]
    assert only_internal[COMMAND] < only_internal[PUBLIC]


def test_the_default_weighs_instance_attributes_and_commands_not_internals(surface: ApiSurface) -> None:
    weights, commands = role_weights(_entries(surface))
    by_id = {e.api_id: i for i, e in enumerate(surface.entries)}
    instance = {i for i, e in enumerate(surface.entries) if e.instance_attribute}  # Table's, Command.fn
    assert by_id[INSTANCE] in instance and by_id["tbl.cli.Command.fn"] in instance
    assert weights == dict.fromkeys(instance, DEFAULT.instance_attribute_weight)
    assert commands == {by_id[COMMAND]}
    assert DEFAULT.internal_weight == 1.0  # measured: moved no dev set (config.py)
    ranks = _ranks(_entries(surface), TASK, DEFAULT)
    assert ranks[COMMAND] > ranks[PUBLIC] and ranks[INSTANCE] > ranks[PUBLIC]


def test_a_command_object_ranks_as_a_command_for_a_task_worded_as_a_command_line(
    surface: ApiSurface,
) -> None:
    config = DEFAULT.replace(command_weight=0.2)
    as_code = _ranks(_entries(surface), "insert rows into a table from my program", config)
    as_command = _ranks(_entries(surface), "insert rows into a table from the command line", config)
    assert as_code[COMMAND] > as_code[PUBLIC]
    assert as_command[COMMAND] < as_command[PUBLIC]
    # a command object is no data: attribute_weight does not apply to it
    cmd = next(e for e in surface.entries if e.api_id == COMMAND)
    const = next(e for e in surface.entries if e.api_id == CONSTANT)
    assert (is_data(cmd), is_data(const)) == (False, True)


@pytest.mark.parametrize(
    ("task", "command"),
    [
        ("run the import from the command line", True),
        ("a command-line tool that inserts rows", True),
        ("what the CLI prints", True),
        ("type it in the terminal", True),
        ("run it from the shell", True),
        ("call insert from my program", False),
        ("make a click command run with the app context", False),
        ("add names to the shell context", False),
        ("a client that clicks", False),
    ],
)
def test_a_task_worded_as_a_command_line(task: str, command: bool) -> None:
    assert asks_for_command(task) is command


def test_asks_for_command_runs_in_linear_time() -> None:
    import time

    hostile = "command " * 20000 + "shel" * 20000 + "from the " * 20000
    t = time.perf_counter()
    assert asks_for_command(hostile) is False
    assert time.perf_counter() - t < 1.0


def _example(code: str, example_id: str) -> Example:
    return Example(
        example_id=example_id,
        title="Bulk loading",
        code=textwrap.dedent(code).lstrip(),
        language="python",
        source="docs",
        path="guide.md",
        line=1,
        complete=True,
    )


def test_get_examples_prefers_an_example_of_a_real_api_over_one_of_an_internal(surface: ApiSurface) -> None:
    entries = _entries(surface)
    # the task's words only in their (same) title: the one that shows the helper is the
    # shorter, so by text it comes first; find_api's implied APIs left out by the config
    examples = [
        _example("import tbl.core\ntbl.core.insert_rows_into_table_checked(rows)\n", "helper"),
        _example(
            "import tbl\ntbl.add(table, rows)\ntbl.add(table, more_rows)\ntbl.add(other_table, rows)\n", "api"
        ),
    ]
    match_examples(examples, ApiSurface(surface.library, surface.version, entries), library="tbl")
    assert examples[0].apis_used == [HELPER] and examples[1].apis_used == [PUBLIC]
    index = ApiIndex({"tbl": (entries, examples)}, config=DEFAULT.replace(implied_weight=0.0))
    assert index.users_call("tbl", PUBLIC) and not index.users_call("tbl", HELPER)
    assert not index.users_call("tbl", INSTANCE) and not index.users_call("tbl", "tbl.nothing")
    found = [(ex.example_id, round(score, 2)) for _, ex, score in index.examples_for("bulk loading", limit=5)]
    assert [name for name, _ in found] == ["api", "helper"], found
    # the difference is own_api_bonus: without it the shorter example comes first
    flat = ApiIndex(
        {"tbl": (entries, examples)}, config=DEFAULT.replace(implied_weight=0.0, own_api_bonus=0.0)
    )
    assert [ex.example_id for _, ex, _ in flat.examples_for("bulk loading", limit=5)] == ["helper", "api"]


def test_one_code_block_on_two_pages_is_one_example(surface: ApiSurface) -> None:
    """A python-dateutil tour: examples.rst repeats the reference pages' blocks, and
    get_examples gave the same code twice (`examples.rst:92` and `relativedelta.rst:103`).
    The same code (whitespace aside) is one answer; the next one takes the other's place."""
    entries = _entries(surface)
    twice = "import tbl\ntbl.add(table, rows)\n"
    examples = [
        _example(twice, "guide"),
        _example("import tbl\ntbl.add(table,  rows)\n\n", "reference"),  # the same, spaced apart
        _example("import tbl\ntbl.add(table, more_rows)\ntbl.add(other, rows)\n", "other"),
    ]
    match_examples(examples, ApiSurface(surface.library, surface.version, entries), library="tbl")
    index = ApiIndex({"tbl": (entries, examples)}, config=DEFAULT.replace(implied_weight=0.0))
    found = [ex.example_id for _, ex, _ in index.examples_for("bulk loading", limit=2)]
    assert len(found) == 2 and found[1] == "other" and found[0] in ("guide", "reference"), found


def test_a_package_that_does_not_parse_is_reported_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "tbl").mkdir()
    (tmp_path / "tbl" / "__init__.py").write_text('"""Tables."""\nfrom tbl.core import insert_rows\n')
    (tmp_path / "tbl" / "core.py").write_text("def insert_rows(table, rows):\n    '''Add rows.'''\n")
    (tmp_path / "tbl" / "broken.py").write_text("def insert_rows_into_table(:\n")
    entries = load_api("tbl", search_paths=[tmp_path]).entries
    ranks = _ranks(entries, TASK, DEFAULT)
    assert "tbl.core.insert_rows" in ranks and not any("broken" in a for a in ranks)
