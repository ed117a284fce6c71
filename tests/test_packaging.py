"""The project's habits: one version, a license file, a changelog in Keep a Changelog form.

``importlib.metadata.version("zloutch")`` would read whichever tree is installed (an editable
install may point at another checkout), so the default run reads the files themselves; the
slow test builds the wheel of this tree and reads its metadata.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$")
SECTIONS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def source_version() -> str:
    """``__version__`` as written in src/zloutch/__init__.py: a string literal at the top of
    the module, which setuptools reads without importing the package."""
    tree = ast.parse((ROOT / "src" / "zloutch" / "__init__.py").read_text(encoding="utf-8"))
    found = [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(
            isinstance(t, ast.Name) and t.id == "__version__"
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]
    assert len(found) == 1, "one __version__ = '...' at the top of src/zloutch/__init__.py"
    return found[0]


def test_the_version_is_written_once_in_the_package() -> None:
    config = pyproject()
    assert "version" not in config["project"]  # no second copy to forget
    assert "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "zloutch.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", source_version())


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    project = pyproject()["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the Zloutch contributors" in text
    # PEP 639 metadata (a license expression, license-files) needs setuptools 77 or later.
    (backend,) = [r for r in pyproject()["build-system"]["requires"] if "setuptools" in r]
    minimum = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", backend.replace(" ", ""))
    assert minimum is not None and int(minimum.group(1)) >= 77


def test_the_changelog_has_unreleased_then_releases_newest_first() -> None:
    lines = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Changelog"
    heads = [line for line in lines if line.startswith("## ")]
    assert heads[0] == "## [Unreleased]"
    releases = [RELEASE.match(line) for line in heads[1:]]
    assert all(releases), [h for h, m in zip(heads[1:], releases, strict=True) if not m]
    versions = [tuple(int(x) for x in m.group(1).split(".")) for m in releases if m]
    dates = [m.group(2) for m in releases if m]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    assert dates == sorted(dates, reverse=True)
    # The package's version is released or about to be: its entry is there.
    assert source_version() in {m.group(1) for m in releases if m}
    sections = {line[4:] for line in lines if line.startswith("### ")}
    assert sections <= SECTIONS, sections - SECTIONS


def test_contributing_says_how_to_add_a_changelog_entry() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "CHANGELOG.md" in text and "## [Unreleased]" in text


@pytest.mark.slow
def test_the_built_wheel_carries_the_version_and_the_license(tmp_path: Path) -> None:
    # Builds a copy of this tree as pip would (an isolated build, setuptools from the
    # registry); the copy keeps build/ and *.egg-info out of the checkout.
    tree, wheels = tmp_path / "tree", tmp_path / "wheels"
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, tree / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(wheels), "."],
        cwd=tree,
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("zloutch-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        fields = archive.read(metadata).decode("utf-8").split("\n\n", 1)[0].splitlines()
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert f"Version: {source_version()}" in fields
    assert "License-Expression: MIT" in fields
    assert "License-File: LICENSE" in fields
