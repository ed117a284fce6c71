"""The researcher's API: ``import zloutch`` is cheap, and every curated name is there, is the
object its module defines, is documented, and is what mypy sees."""

from __future__ import annotations

import ast
import inspect
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import zloutch
import zloutch.engine
import zloutch.rules

INIT = Path(zloutch.__file__)
HEAVY = ("numba", "numpy", "textual", "matplotlib", "ray", "rich", "typer")
"""What neither ``import zloutch`` nor ``zloutch.load_rules`` may import."""

CURATED = [name for name in zloutch.__all__ if name != "__version__"]


def imported_by(code: str) -> list[str]:
    """The heavy packages in sys.modules after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    src = str(INIT.parents[1])
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": src},
    )
    modules = json.loads(done.stdout.splitlines()[-1])
    return sorted({m.split(".")[0] for m in modules} & set(HEAVY))


def test_import_zloutch_and_load_rules_import_nothing_heavy() -> None:
    assert imported_by("import zloutch; zloutch.load_rules('dix-mille(entry=800)')") == []
    assert imported_by("from zloutch import __version__") == []


def test_the_engine_names_import_nothing_heavy() -> None:
    code = (
        "import random, zloutch\n"
        "s = zloutch.apply(zloutch.new_game(zloutch.load_rules('farkle'), ['A', 'B']),"
        " zloutch.Throw())\n"
        "zloutch.apply(s, zloutch.sample_roll(s, random.Random(1)))\n"
        "zloutch.make_bot('greedy')"
    )
    assert imported_by(code) == []


def test_a_solver_brings_numpy_only_when_asked_for() -> None:
    assert "numpy" in imported_by("import zloutch; zloutch.solve_turn")


@pytest.mark.parametrize("name", CURATED)
def test_every_curated_name_resolves_to_its_module_object(name: str) -> None:
    value = getattr(zloutch, name)
    module = sys.modules[zloutch._WHERE[name]]
    assert value is getattr(module, name)


@pytest.mark.parametrize("name", CURATED)
def test_every_curated_name_is_documented(name: str) -> None:
    value = getattr(zloutch, name)
    if inspect.isclass(value) or inspect.isfunction(value):
        own = vars(value).get("__doc__") if inspect.isclass(value) else value.__doc__
        assert own and not own.startswith(f"{name}("), f"{name} has no docstring of its own"
    # and the module's docstring lists it, constants (CHANCE, PRESETS) included
    assert zloutch.__doc__ is not None
    listed = {word.strip(",`") for word in zloutch.__doc__.split()}
    assert name in listed, f"{name} is missing from zloutch's docstring"


def test_all_is_the_curated_table_and_dir_shows_it() -> None:
    assert sorted(zloutch.__all__) == sorted([*zloutch._WHERE, "__version__"])
    assert len(set(zloutch.__all__)) == len(zloutch.__all__)
    assert set(zloutch.__all__) <= set(dir(zloutch))


def test_star_import_gives_the_curated_names() -> None:
    namespace: dict[str, object] = {}
    exec("from zloutch import *", namespace)
    assert set(zloutch.__all__) <= set(namespace)


def test_type_checking_imports_are_the_lazy_table() -> None:
    """What mypy and IDEs see (the ``if TYPE_CHECKING:`` imports) is what ``__getattr__``
    loads: the same name from the same module."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    blocks = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    assert len(blocks) == 1
    seen = {
        alias.name: node.module
        for node in ast.walk(blocks[0])
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == zloutch._WHERE


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'zloutch' has no attribute 'solve'"):
        zloutch.solve  # noqa: B018


def test_names_that_two_layers_share_have_one_meaning() -> None:
    # Keep is the engine's action; the rules' scored keep is ScoredKeep.
    assert zloutch.Keep is zloutch.engine.Keep
    assert zloutch.ScoredKeep is zloutch.rules.ScoredKeep
    assert zloutch.Keep is not zloutch.ScoredKeep
    # Roll is chance's action; an Outcome is the end of a game, not a chance outcome.
    assert zloutch.Roll is zloutch.engine.Roll
    assert issubclass(zloutch.Roll, zloutch.Action)
    assert not issubclass(zloutch.Outcome, zloutch.Action)
    # one name per idea: score_throw (rules) is curated, the engine's throw_score is not
    assert not hasattr(zloutch, "throw_score")


def test_the_version_is_the_project_version() -> None:
    pyproject = tomllib.loads((INIT.parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    # One place: the package's metadata reads the version from zloutch.__version__.
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "zloutch.__version__"}
    assert isinstance(zloutch.__version__, str) and zloutch.__version__[0].isdigit()
