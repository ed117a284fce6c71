"""The server's libraries load only for ``zloutch serve``; without them it says what to do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zloutch.adapters.cli import app

SRC = Path(__file__).resolve().parents[3] / "src"
HEAVY = ("fastapi", "starlette", "sqlalchemy", "uvicorn", "alembic", "psycopg", "websockets")


def test_zloutch_score_does_not_import_the_server_libraries() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from zloutch.adapters.cli import app\n"
        "assert CliRunner().invoke(app, ['score', '1', '5']).exit_code == 0\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"


def test_serve_without_the_web_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("fastapi", "uvicorn"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "zloutch.adapters.web.app", raising=False)
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 2
    assert result.stderr == "error: zloutch serve needs the web extra: pip install 'zloutch[web]'\n"
