"""The Hugging Face token: keyring or session memory, and never in a file or a log."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from localmind import paths
from localmind.core import secrets
from localmind.core.hub import DownloadJob, DownloadRequest, HubSettings
from tests.helpers.fake_hub import FakeHub
from tests.helpers.hub_env import GATED_REPO, TOKEN, use_keyring
from tests.helpers.memory_keyring import MemoryKeyring


@pytest.fixture(autouse=True)
def clean_session(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    use_keyring(monkeypatch)
    secrets.delete_token()
    yield
    secrets.delete_token()


def test_without_a_keyring_the_token_is_kept_for_the_session() -> None:
    assert not secrets.keyring_available()
    assert secrets.set_token("  hf_abc  ") is secrets.TokenStore.SESSION
    assert secrets.get_token() == "hf_abc" and secrets.token_store() is secrets.TokenStore.SESSION
    secrets.delete_token()
    assert secrets.get_token() is None and secrets.token_store() is None


def test_with_a_keyring_the_token_goes_there(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = MemoryKeyring()
    use_keyring(monkeypatch, backend)
    assert secrets.set_token("hf_key") is secrets.TokenStore.KEYRING
    assert backend.store == {(secrets.SERVICE, secrets.HF_TOKEN_NAME): "hf_key"}
    assert secrets.get_token() == "hf_key" and secrets.token_store() is secrets.TokenStore.KEYRING
    secrets.delete_token()
    assert backend.store == {}


def test_empty_token_is_refused() -> None:
    with pytest.raises(ValueError):
        secrets.set_token("   ")


def test_the_token_never_reaches_a_file_or_a_log(
    hub: FakeHub, settings: HubSettings, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    log_file = paths.logs_dir() / "localmind.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(log_file, encoding="utf-8")
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    caplog.set_level(logging.DEBUG)
    try:
        secrets.set_token(TOKEN)
        # A failed attempt first (the log then holds the error path too), then the real one.
        hub.faults.drop_after["cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4/model.onnx"] = [100]
        model = DownloadJob(
            DownloadRequest(GATED_REPO, model_id="gated"), settings=settings, token=secrets.get_token()
        ).run()
        assert model.ok
    finally:
        root.removeHandler(handler)
        handler.close()
        root.setLevel(old_level)
    assert log_file.stat().st_size > 0
    files = [p for p in paths.data_dir().rglob("*") if p.is_file()]
    assert any(p.name == "localmind-manifest.json" for p in files)
    for path in files:
        assert TOKEN.encode() not in path.read_bytes(), f"token found in {path}"
    assert TOKEN not in caplog.text
