"""Fixtures for the model manager's unit tests: a fake hub serving the tiny model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from localmind.core.hub import HubSettings
from tests.helpers.fake_hub import FakeHub
from tests.helpers.hub_env import fast_settings, running_hub


@pytest.fixture
def hub(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with running_hub(tiny_model, monkeypatch, page_size=4) as server:
        yield server


@pytest.fixture
def settings(hub: FakeHub) -> HubSettings:
    return fast_settings(hub)
