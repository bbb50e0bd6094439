"""Shared test fixtures.

Tests that need the real corpora use the ``shared`` fixture: it points at ``$PARASPAN_SHARED``
or ``../shared`` beside the repository, and skips the test cleanly when that is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_root() -> Path | None:
    env = os.environ.get("PARASPAN_SHARED")
    root = Path(env) if env else REPO.parent / "shared"
    return root if (root / "data").is_dir() else None


@pytest.fixture
def shared() -> Path:
    root = shared_root()
    if root is None:
        pytest.skip("../shared is absent (set PARASPAN_SHARED to the shared data folder)")
    return root


def need_shared(*parts: str) -> Path:
    """The path ``shared/<parts>``, or skip the calling test when it is missing."""
    root = shared_root()
    if root is None:
        pytest.skip("../shared is absent (set PARASPAN_SHARED to the shared data folder)")
    path = root.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is missing")
    return path


@pytest.fixture
def browser():
    """A headless chromium (Selenium), skipped with the reason when there is none."""
    from tests.report.browser import chrome_driver

    driver = chrome_driver()
    try:
        yield driver
    finally:
        driver.quit()
