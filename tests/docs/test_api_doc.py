"""docs/api.md: every ```pycon example of the researcher's guide runs, and prints what it says;
so does the README's example.

The examples are doctests: the blocks run in order in one namespace, as a reader pastes them
into one session, and a failure names the line of docs/api.md where its example starts.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "api.md"
README = ROOT / "README.md"
BLOCK = re.compile(r"^```pycon\n(.*?)^```$", re.MULTILINE | re.DOTALL)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def blocks(text: str) -> list[tuple[int, str]]:
    """Each ```pycon block's text, with the line (0-based) of its first line in the file."""
    return [(text.count("\n", 0, m.start(1)), m.group(1)) for m in BLOCK.finditer(text)]


def test_the_guide_has_examples_and_no_other_python_block() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert len(blocks(text)) >= 10
    # a ```python block would be shown to readers without being run: write ```pycon
    assert "```python" not in text and "```py\n" not in text


def run_examples(path: Path) -> doctest.TestResults:
    """Run every ```pycon block of a file, in order, in one namespace."""
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    namespace: dict[str, object] = {"__name__": path.stem}
    for line, source in blocks(path.read_text(encoding="utf-8")):
        test = parser.get_doctest(source, namespace, path.name, str(path), line)
        runner.run(test, clear_globs=False)
        namespace = test.globs  # a DocTest runs in a copy: carry its names to the next block
    return runner.summarize(verbose=False)


def test_every_example_of_the_guide_runs() -> None:
    result = run_examples(DOC)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) of {DOC.name} failed: see above"


def test_the_readme_python_example_runs() -> None:
    result = run_examples(README)
    assert result.attempted >= 5
    assert result.failed == 0, f"{result.failed} example(s) of README.md failed: see above"
