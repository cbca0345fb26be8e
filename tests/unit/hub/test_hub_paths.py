"""Issue 9 item 16: paths in the Hub's listing are data from the network; none may write outside the staging folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from localmind import paths
from localmind.core.hub import DownloadJob, DownloadRequest, HubError
from tests.helpers.fake_hub import DEVICE_FOLDER, FakeHub, FakeRepo, model_repo_files
from tests.helpers.hub_env import allow_hub_access, assert_nothing_installed, fast_settings

HOSTILE = "localmind-tests/hostile"


@pytest.mark.parametrize(
    "bad_path",
    [
        f"{DEVICE_FOLDER}/../../../../escaped.txt",
        f"{DEVICE_FOLDER}/sub/../../../../../escaped.txt",
        f"{DEVICE_FOLDER}/..\\..\\escaped.txt",
    ],
)
def test_a_listed_path_that_leaves_the_staging_folder_is_refused(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path, bad_path: str
) -> None:
    allow_hub_access(monkeypatch)
    files = model_repo_files(tiny_model)
    files[bad_path] = b"owned\n"
    with FakeHub() as hub:
        hub.add_repo(FakeRepo(HOSTILE, files))
        request = DownloadRequest(HOSTILE, folder=DEVICE_FOLDER, model_id="hostile")
        with pytest.raises(HubError, match="unsafe path"):
            DownloadJob(request, settings=fast_settings(hub)).run()
        # Refused while planning: not one file body was asked for.
        assert hub.requests(path_contains="/resolve/") == []
    assert not list(data_dir.rglob("escaped.txt"))
    assert not list(data_dir.parent.rglob("escaped.txt"))
    assert_nothing_installed()
    assert not (paths.staging_dir() / "hostile").exists() or not any((paths.staging_dir() / "hostile").rglob("*.onnx"))
