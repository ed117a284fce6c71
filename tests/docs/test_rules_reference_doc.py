"""The rules reference (docs/rules.md): every rule id cited anywhere is defined there, every
option names defined rules and says what it means, and the parts written from the rule data
are up to date.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rules_doc_blocks import BLOCKS, DOC, written_block

from zloutch.rules import OPTIONS, PRESETS

ROOT = Path(__file__).resolve().parents[2]
CITED = re.compile(r"\b[STGVF]-\d+\b")
DEFINED = re.compile(r"^- \*\*(?P<id>[STGVF]-\d+)\*\* ", re.MULTILINE)
READING_ROW = re.compile(r"^\| (?P<id>[STGVF]-\d+) \|", re.MULTILINE)
SEARCHED = (ROOT / "src", ROOT / "tests", ROOT / "docs")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".svg", ".json", ".csv"}


def page() -> str:
    return DOC.read_text(encoding="utf-8")


def defined_ids() -> list[str]:
    return [m["id"] for m in DEFINED.finditer(page())]


def rule_bullets() -> dict[str, str]:
    """Each rule id's bullet on the page: from its ``- **ID**`` to the next bullet or heading."""
    text = page()
    starts = list(DEFINED.finditer(text))
    bullets = {}
    for m in starts:
        end = len(text)
        for stop in (re.compile(r"^- \*\*", re.M), re.compile(r"^#", re.M)):
            later = stop.search(text, m.end())
            if later is not None:
                end = min(end, later.start())
        bullets[m["id"]] = text[m.start() : end]
    return bullets


def cited_ids() -> dict[str, list[str]]:
    """Every rule id cited in src/, tests/, docs/, README and CONTRIBUTING, with where."""
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    for folder in SEARCHED:
        files += [p for p in folder.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES]
    cited: dict[str, list[str]] = {}
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # pragma: no cover - no such file today
            continue
        for rule_id in CITED.findall(text):
            cited.setdefault(rule_id, []).append(str(path.relative_to(ROOT)))
    return cited


def mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


# ---------------------------------------------------------------------------- the rule ids


def test_every_rule_is_defined_once_and_the_ids_have_no_gaps() -> None:
    ids = defined_ids()
    assert len(ids) == len(set(ids)), "a rule id is defined twice"
    for letter in "STGVF":
        numbers = sorted(int(i[2:]) for i in ids if i[0] == letter)
        assert numbers == list(range(1, len(numbers) + 1)), letter
        assert numbers, letter


def test_every_rule_id_cited_in_the_repository_is_defined_in_the_reference() -> None:
    cited = cited_ids()
    # The search must find the citations it is meant to check.
    assert {"S-16", "T-7", "G-8", "V-2", "F-5"} <= set(cited)
    assert any(where.startswith("src/") for where in cited["T-7"])
    defined = set(defined_ids())
    undefined = {rule_id: sorted(set(where))[:3] for rule_id, where in cited.items()}
    undefined = {k: v for k, v in undefined.items() if k not in defined}
    assert undefined == {}


def test_the_citation_pattern_finds_ids_and_ranges_but_not_look_alikes() -> None:
    assert CITED.findall("as T-7 and S-3..S-6 say (G-4 Reading), not ST-1, T-, X-2") == [
        "T-7",
        "S-3",
        "S-6",
        "G-4",
    ]
    # A definition is a bullet that opens with the id in bold, not a mere mention.
    assert [m["id"] for m in DEFINED.finditer("- **T-7** Entry.\nsee T-8\n- T-9\n")] == ["T-7"]


# ---------------------------------------------------------------------------- the options


def test_every_option_names_defined_rules_and_has_a_one_line_meaning() -> None:
    defined = set(defined_ids())
    for name, info in OPTIONS.items():
        assert info.name == name
        assert info.rule_ids, name
        assert set(info.rule_ids) <= defined, name
        assert info.reading in ("", *info.rule_ids), name
        assert info.meaning.strip() == info.meaning and info.meaning, name
        assert "\n" not in info.meaning, name
        assert not info.meaning[0].islower() and info.meaning.endswith("."), name


def test_every_option_is_named_under_one_of_its_rules() -> None:
    bullets = rule_bullets()
    missing = [
        name
        for name, info in OPTIONS.items()
        if not any(mentions(bullets[rule_id], name) for rule_id in info.rule_ids)
    ]
    assert missing == []


def test_every_reading_option_is_in_the_readings_table() -> None:
    text = page()
    readings = text[text.index("## Readings") : text.index("## Options")]
    rows = {
        m["id"]: readings[m.start() : readings.find("\n", m.start())]
        for m in READING_ROW.finditer(readings)
    }
    for name, info in OPTIONS.items():
        if info.reading:
            assert info.reading in rows, name
            assert mentions(rows[info.reading], name), name
    assert set(rows) <= set(defined_ids())


def test_the_page_mentions_every_option_and_every_preset() -> None:
    text = page()
    assert [name for name in OPTIONS if f"`{name}`" not in text] == []
    assert [name for name in PRESETS if f"`{name}`" not in text] == []


# ---------------------------------------------------------------------------- written from data


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_the_parts_written_from_the_data_are_up_to_date(name: str) -> None:
    written = written_block(page(), name)
    assert written is not None, f"docs/rules.md has no <!-- begin {name} --> block"
    assert written == BLOCKS[name](), (
        f"the {name} block of docs/rules.md is out of date: run "
        "python scripts/regen_rules_doc.py and read the diff"
    )


def test_the_options_block_holds_each_option_with_its_rule_and_meaning() -> None:
    block = written_block(page(), "options")
    assert block is not None
    for name, info in OPTIONS.items():
        row = next(line for line in block.splitlines() if line.startswith(f"| `{name}` |"))
        assert f"| {info.rule} |" in row
        assert info.meaning.replace("|", "\\|") in row


def test_the_option_data_needs_no_source_files(tmp_path: Path) -> None:
    """Only compiled modules and the presets: the rules show and the meanings still work."""
    package = tmp_path / "zloutch"
    shutil.copytree(ROOT / "src" / "zloutch", package, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "compileall", "-b", "-q", str(package)], check=True)
    for source in package.rglob("*.py"):
        source.unlink()
    script = (
        "import zloutch\n"
        f"assert zloutch.__file__.startswith({str(tmp_path)!r}), zloutch.__file__\n"
        "from rich.console import Console\n"
        "from zloutch.console.render import option_meaning, rules_renderables\n"
        "from zloutch.rules import OPTIONS, load_rules\n"
        "assert all(all(option_meaning(n)) for n in OPTIONS)\n"
        "console = Console(width=200, record=True)\n"
        "for part in rules_renderables(load_rules('dix-mille')): console.print(part)\n"
        "print(console.export_text())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": ""},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "G-3 Reading" in result.stdout
    assert OPTIONS["ticks_restart"].meaning[:40] in result.stdout


def test_the_rule_file_reference_gives_each_option_the_rule_ids_of_its_data() -> None:
    text = (ROOT / "docs" / "rules-format.md").read_text(encoding="utf-8")
    shown = {}
    for line in text.splitlines():
        found = re.match(r"^\| `(\w+)` \|", line)
        if found and found[1] in OPTIONS:
            shown[found[1]] = line.split(" | ")[3]  # key | type | default | rule | meaning
    assert set(shown) == set(OPTIONS)
    assert {name: rule for name, rule in shown.items() if rule != OPTIONS[name].rule} == {}
