"""Servers shared by a test module: starting one (a Python process plus the engine's child) takes ~2 s."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from tests.helpers.memory_keyring import MemoryKeyring
from tests.server.serving import Server, start_server
from tests.server.slow_model import build_slow_model


@pytest.fixture(scope="module")
def tiny_server(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("serve-data")
    server = start_server(tiny_model, data, env={"LOCALMIND_DATA_DIR": str(data)})
    yield server
    server.stop()


@pytest.fixture(scope="session")
def slow_model(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_slow_model(tiny_model, tmp_path_factory.mktemp("models") / "slow")


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """The keyring is a dict for the test (the app stores the server's keys there)."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
