"""Shared set-up for tests that talk to the fake hub: the repo, fast retry settings, and checks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from localmind import paths
from localmind.core.hub import HubSettings, list_installed
from tests.helpers.fake_hub import DEVICE_FOLDER, FakeHub, FakeRepo, model_repo_files, pseudo_random_bytes

REPO = "localmind-tests/tiny-onnx"
GATED_REPO = "localmind-tests/gated-onnx"
TOKEN = "hf_localmindTESTtoken1234567890"
# An LFS file big enough to drop, stall and resume in the middle of, small enough to be quick.
WEIGHTS = "weights.bin"
WEIGHTS_SIZE = 600_000
WEIGHTS_PATH = f"{DEVICE_FOLDER}/{WEIGHTS}"
MODEL_ID = "tiny-onnx"


def allow_hub_access(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite sets HF_HUB_OFFLINE=1 (nothing may reach the real Hub); the fake one on loopback is fine."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


def use_keyring(monkeypatch: pytest.MonkeyPatch, backend: object | None = None) -> None:
    """Make ``backend`` the keyring for this test (default: none at all), so no test touches a real keyring."""
    import keyring.backends.fail
    import keyring.core

    monkeypatch.setattr(keyring.core, "_keyring_backend", backend or keyring.backends.fail.Keyring())


def start_hub(model_dir: Path, *, page_size: int = 1000, weights_size: int = WEIGHTS_SIZE) -> FakeHub:
    hub = FakeHub(page_size=page_size)
    extra = {WEIGHTS: pseudo_random_bytes(weights_size)}
    hub.add_repo(FakeRepo(REPO, model_repo_files(model_dir, extra=extra)))
    hub.add_repo(FakeRepo(GATED_REPO, model_repo_files(model_dir), token=TOKEN))
    return hub.start()


def fast_settings(hub: FakeHub, **overrides: object) -> HubSettings:
    values: dict[str, object] = {
        "endpoint": hub.endpoint,
        "connect_timeout_s": 2.0,
        "stall_timeout_s": 0.5,
        "max_attempts": 3,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
        "progress_interval_s": 0.0,
        "fsync": False,
    }
    values.update(overrides)
    return HubSettings(**values)  # type: ignore[arg-type]


def assert_nothing_installed() -> None:
    assert list_installed() == []
    models = paths.models_dir()
    if models.is_dir():
        visible = [p.name for p in models.iterdir() if not p.name.startswith(".")]
        assert visible == [], f"something left in the models folder: {visible}"


@contextmanager
def running_hub(model_dir: Path, monkeypatch: pytest.MonkeyPatch, *, page_size: int = 1000) -> Iterator[FakeHub]:
    """A fake hub serving ``model_dir`` for the duration of a test, with Hub access allowed."""
    allow_hub_access(monkeypatch)
    server = start_hub(model_dir, page_size=page_size)
    try:
        yield server
    finally:
        server.stop()
