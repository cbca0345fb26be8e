"""The Xet path's small pieces: when it is used, and how its tqdm-only progress and cancel are bridged.

The fake hub does not speak Xet (the client would hard-fail if it advertised it), so the
transfer itself is not exercised here; the HTTP path covers resume and verification.
"""

from __future__ import annotations

import pytest

from localmind.core.hub import DownloadStopped, HubSettings, TransferControl
from localmind.core.hub.listing import RemoteFile
from localmind.core.hub.transfer import xet_usable
from localmind.core.hub.xet import progress_class


def test_xet_is_used_only_when_allowed_and_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", False)
    assert xet_usable(HubSettings(use_xet=False)) is False
    import importlib.util

    installed = importlib.util.find_spec("hf_xet") is not None
    assert xet_usable(HubSettings()) is installed
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    assert xet_usable(HubSettings()) is False


def test_progress_class_counts_bytes_and_stops_on_cancel() -> None:
    counted: list[int] = []
    control = TransferControl()
    bar_class = progress_class(counted.append, control)
    bar = bar_class(total=100, unit="B")
    bar.update(40)
    bar.update(0)
    files_bar = bar_class(total=3)  # the client's "files" bar counts files, not bytes
    files_bar.update(1)
    files_bar.close()
    assert counted == [40]
    control.cancel()
    with pytest.raises(DownloadStopped):
        bar.update(10)
    bar.close()
    assert counted == [40, 10]


def test_remote_file_hash_choice() -> None:
    lfs = RemoteFile("a.onnx", 10, "blob", sha256="ab" * 32, xet_hash="x")
    small = RemoteFile("genai_config.json", 10, "c" * 40)
    assert (lfs.algorithm, lfs.expected_hash) == ("sha256", "ab" * 32)
    assert (small.algorithm, small.expected_hash) == ("git-sha1", "c" * 40)
