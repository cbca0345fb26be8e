"""Fixtures for the model manager's unit tests: a fake hub serving the tiny model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from localmind.core.hub import HubSettings
from tests.helpers.fake_hub import FakeHub
from tests.helpers.hub_env import allow_hub_access, fast_settings, start_hub


@pytest.fixture
def hub(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    allow_hub_access(monkeypatch)
    server = start_hub(tiny_model, page_size=4)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def settings(hub: FakeHub) -> HubSettings:
    return fast_settings(hub)
