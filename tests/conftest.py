"""Shared fixtures: an isolated data folder for every test, and the tiny deterministic model."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
# Never reach the real Hugging Face from a test.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


@pytest.fixture(autouse=True)
def data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test writes under its own data folder (never the user's real one)."""
    from localmind import paths

    path = tmp_path_factory.mktemp("data")
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(path))
    paths.set_data_dir(None)
    yield path
    paths.set_data_dir(None)


@pytest.fixture(autouse=True)
def gc_on_the_gui_thread(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests run as the app does: from the first Qt test on, cyclic garbage is collected on the GUI (main) thread
    only (workers/collector.py) — by its timer while Qt runs events, and here after every test, by the same
    thresholds. Set up before qtbot, so torn down after it: the widgets it closes are counted here. (Not a full
    collection per test: with this session's heap that cost ~0.15 s a test, 2 minutes of CI.)"""
    if "qtbot" in request.fixturenames or "qapp" in request.fixturenames:
        from localmind.workers import collector

        collector.install(request.getfixturevalue("qapp"))
    yield
    if "localmind.workers.collector" in sys.modules:
        from localmind.workers import collector

        running = collector.installed()
        if running is not None and running.running:
            running.check()


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny deterministic og model folder (built once per session, ~50 ms)."""
    from tests.helpers.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny")
