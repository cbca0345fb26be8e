"""Offline by default: start-up, loading a model and chatting open no network connection.

Every socket connect fails the test. Only a download or a Hub search the user
starts may connect (those are tested against the fake hub elsewhere).
"""

from __future__ import annotations

import importlib
import pkgutil
import socket
from pathlib import Path
from typing import Any

import pytest

import localmind

# Modules that run something when imported.
SKIP = {"localmind.__main__"}


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    attempts: list[str] = []

    def refuse(self: socket.socket, address: Any, *args: Any) -> Any:
        attempts.append(repr(address))
        raise AssertionError(f"LocalMind tried to connect to {address!r} while it should be offline")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", lambda address, *a, **k: refuse(None, address))  # type: ignore[arg-type]
    return attempts


def test_start_up_model_load_and_chat_stay_offline(no_network: list[str], tiny_model: Path) -> None:
    for module in pkgutil.walk_packages(localmind.__path__, "localmind."):
        if module.name not in SKIP:
            importlib.import_module(module.name)

    from localmind.cli import build_parser, main
    from localmind.core.catalog import load_catalog, machine_info
    from localmind.core.hub import list_installed, list_unfinished

    build_parser()
    load_catalog()
    machine_info()
    list_installed()
    list_unfinished()
    assert main(["models", "list"]) == 0

    from localmind.engine.local import LocalEngine
    from localmind.engine.types import ChatMessage, GenerationOptions, TextDelta
    from tests.helpers.tiny_model import REPLIES

    engine = LocalEngine()
    engine.load(str(tiny_model))
    text = "".join(
        e.text
        for e in engine.generate([ChatMessage("user", "hi")], GenerationOptions(temperature=0))
        if isinstance(e, TextDelta)
    )
    engine.close()
    assert text in REPLIES
    assert no_network == []


def test_the_guard_itself_catches_a_connect(no_network: list[str]) -> None:
    with pytest.raises(AssertionError, match="should be offline"):
        socket.create_connection(("127.0.0.1", 9))
    with socket.socket() as sock, pytest.raises(AssertionError):
        sock.connect(("127.0.0.1", 9))
    assert len(no_network) == 2
