"""Every test gets an empty cache folder: no solved table from this machine may leak in."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    folder = tmp_path_factory.mktemp("zloutch-cache")
    monkeypatch.setenv("ZLOUTCH_CACHE", str(folder))
    return folder
