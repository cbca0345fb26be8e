"""Downloads against the fake hub, with every fault the issue lists. For each: nothing broken is installed, the user is told."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import threading
from pathlib import Path
from typing import IO

import pytest

from localmind import paths
from localmind.core.hub import (
    DownloadJob,
    DownloadProgress,
    DownloadRequest,
    DownloadStopped,
    HubError,
    HubSettings,
    NotEnoughDiskError,
    TransferControl,
    get_installed,
    list_installed,
    list_unfinished,
)
from localmind.core.hub.lock import DownloadLock
from localmind.core.hub.manifest import MANIFEST_NAME
from localmind.engine.validate import validate_model_folder
from localmind.errors import UserFacingError
from tests.helpers.fake_hub import DEVICE_FOLDER, FakeHub
from tests.helpers.hub_env import (
    GATED_REPO,
    MODEL_ID,
    REPO,
    TOKEN,
    WEIGHTS,
    WEIGHTS_PATH,
    WEIGHTS_SIZE,
    assert_nothing_installed,
    fast_settings,
)

CONFIG_PATH = f"{DEVICE_FOLDER}/genai_config.json"


def job(settings: HubSettings, **kwargs: object) -> DownloadJob:
    request = DownloadRequest(REPO, model_id=MODEL_ID, name="Tiny")
    return DownloadJob(request, settings=settings, **kwargs)  # type: ignore[arg-type]


def staging() -> Path:
    return paths.staging_dir() / MODEL_ID


def check_installed_matches_hub(hub: FakeHub) -> None:
    model = get_installed(MODEL_ID)
    assert model is not None and model.ok
    for path, data in hub.repos[REPO].files.items():
        if path.startswith(DEVICE_FOLDER + "/"):
            assert (model.folder / path[len(DEVICE_FOLDER) + 1 :]).read_bytes() == data
    validate_model_folder(model.folder)
    assert not staging().exists()


def test_download_installs_with_manifest_and_progress(hub: FakeHub, settings: HubSettings) -> None:
    events: list[DownloadProgress] = []
    model = job(settings, on_progress=events.append).run()
    check_installed_matches_hub(hub)
    manifest = json.loads((model.folder / MANIFEST_NAME).read_text())
    assert (
        manifest["repo"] == REPO
        and manifest["commit"] == hub.repos[REPO].commit
        and manifest["folder"] == DEVICE_FOLDER
    )
    weights = next(f for f in manifest["files"] if f["path"] == WEIGHTS)
    assert weights == {
        "path": WEIGHTS,
        "size": WEIGHTS_SIZE,
        "algorithm": "sha256",
        "hash": hashlib.sha256(hub.repos[REPO].files[WEIGHTS_PATH]).hexdigest(),
    }
    assert not any(f["path"] in ("README.md", ".gitattributes") for f in manifest["files"])
    phases = [e.phase for e in events]
    assert phases[0] == "listing" and phases[-1] == "done" and "installing" in phases
    done = [e.done_bytes for e in events if e.phase == "downloading"]
    assert done == sorted(done) and events[-1].done_bytes == events[-1].total_bytes == model.size_on_disk
    assert events[-1].files_done == events[-1].files_total == len(manifest["files"])
    # LFS bytes came from the CDN, without the Hub token; small files from the Hub itself.
    assert hub.body_requests(WEIGHTS_PATH)[0].origin == "cdn"
    assert hub.body_requests(CONFIG_PATH)[0].origin == "hub"


def test_dropped_connection_resumes_with_range(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.drop_after[WEIGHTS_PATH] = [200_000, 150_000]  # bytes into each response
    job(settings).run()
    check_installed_matches_hub(hub)
    ranges = [r.range for r in hub.body_requests(WEIGHTS_PATH)]
    assert ranges == [None, "bytes=200000-", "bytes=350000-"]
    assert hub.bytes_served[WEIGHTS_PATH] == WEIGHTS_SIZE  # not a byte fetched twice


def test_corrupted_bytes_are_downloaded_again_once(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.corrupt[WEIGHTS_PATH] = 1
    hub.faults.corrupt[CONFIG_PATH] = 1  # a small (git sha1) file too
    statuses: list[str] = []
    job(settings, on_progress=lambda p: statuses.append(p.status)).run()
    check_installed_matches_hub(hub)
    assert len(hub.body_requests(WEIGHTS_PATH)) == 2 and len(hub.body_requests(CONFIG_PATH)) == 2
    assert any("arrived damaged" in s for s in statuses)


def test_corrupted_twice_is_a_clear_error_and_nothing_installed(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.corrupt[WEIGHTS_PATH] = 2
    with pytest.raises(HubError, match="arrived damaged twice") as info:
        job(settings).run()
    assert "nothing was installed" in str(info.value)
    assert_nothing_installed()
    assert not (staging() / (WEIGHTS + ".part")).exists() and not (staging() / WEIGHTS).exists()


def test_stall_is_detected_and_resumed(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.stall_after[WEIGHTS_PATH] = [300_000]
    statuses: list[str] = []
    job(settings, on_progress=lambda p: statuses.append(p.status)).run()
    check_installed_matches_hub(hub)
    assert [r.range for r in hub.body_requests(WEIGHTS_PATH)] == [None, "bytes=300000-"]
    assert any("no data for" in s for s in statuses)


def test_a_persistent_failure_is_reported_not_a_frozen_bar(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.stall_after[WEIGHTS_PATH] = [100_000] + [0] * 10
    with pytest.raises(
        HubError, match=r"Downloading .*/weights.bin failed \d+ times \(connection problem \(no data for"
    ) as info:
        job(fast_settings(hub, stall_timeout_s=0.2)).run()
    assert "part already downloaded is kept" in str(info.value)
    assert_nothing_installed()
    unfinished = list_unfinished()
    assert [(u.model_id, u.repo) for u in unfinished] == [(MODEL_ID, REPO)]
    assert unfinished[0].done_bytes >= 100_000


def test_server_errors_are_retried(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.status[WEIGHTS_PATH] = [503, 502]
    job(settings).run()
    check_installed_matches_hub(hub)


def test_throttled_server_still_completes(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.throttle_bps = 2_000_000
    events: list[DownloadProgress] = []
    job(settings, on_progress=events.append).run()
    check_installed_matches_hub(hub)
    assert any(e.speed_bps > 0 and e.eta_s is not None for e in events if e.phase == "downloading")


def test_server_ignoring_range_restarts_the_file(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.ignore_range = True
    hub.faults.drop_after[WEIGHTS_PATH] = [250_000]
    statuses: list[str] = []
    job(settings, on_progress=lambda p: statuses.append(p.status)).run()
    check_installed_matches_hub(hub)
    requests = hub.body_requests(WEIGHTS_PATH)
    assert [r.range for r in requests] == [None, "bytes=250000-"] and requests[1].status == 200
    assert any("cannot resume" in s for s in statuses)


def test_missing_file_404(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.missing.add(WEIGHTS_PATH)
    with pytest.raises(HubError, match=r"weights\.bin is no longer in"):
        job(settings).run()
    assert_nothing_installed()


def test_gated_repo_needs_the_token_and_it_stays_on_the_hub(hub: FakeHub, settings: HubSettings) -> None:
    with pytest.raises(HubError, match="licence"):
        DownloadJob(DownloadRequest(GATED_REPO), settings=settings).run()
    assert_nothing_installed()
    hub.log.clear()
    model = DownloadJob(DownloadRequest(GATED_REPO, model_id="gated"), settings=settings, token=TOKEN).run()
    assert model.ok
    assert all(r.authorized for r in hub.requests(origin="hub"))
    assert not any(r.authorized for r in hub.requests(origin="cdn"))
    assert TOKEN not in (model.folder / MANIFEST_NAME).read_text()


def test_not_enough_disk_is_checked_before_starting(hub: FakeHub, settings: HubSettings) -> None:
    with pytest.raises(NotEnoughDiskError, match="Not enough disk space") as info:
        job(settings, disk_free=lambda _path: 10_000).run()
    assert "Free some space" in str(info.value)
    assert hub.body_requests(WEIGHTS_PATH) == []
    assert_nothing_installed()


def test_disk_filling_up_mid_download_is_reported_and_resumable(hub: FakeHub, settings: HubSettings) -> None:
    class FullDisk:
        """A part file on a disk with room for 100 kB more."""

        def __init__(self, path: Path) -> None:
            self.handle: IO[bytes] = path.open("ab")
            self.room = 100_000

        def write(self, data: bytes) -> int:
            if len(data) > self.room:
                self.handle.write(data[: self.room])
                self.room = 0
                raise OSError(errno.ENOSPC, "No space left on device")
            self.room -= len(data)
            return self.handle.write(data)

        def __getattr__(self, name: str) -> object:
            return getattr(self.handle, name)

        def __enter__(self) -> FullDisk:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

    def open_full(path: Path) -> IO[bytes]:
        return FullDisk(path) if path.name == WEIGHTS + ".part" else path.open("ab")  # type: ignore[return-value]

    with pytest.raises(HubError, match="The disk is full") as info:
        job(settings, open_part=open_full).run()
    assert "resume" in str(info.value)
    assert_nothing_installed()
    kept = (staging() / (WEIGHTS + ".part")).stat().st_size
    assert kept > 0
    job(settings).run()  # space freed: the same download picks up where it stopped
    check_installed_matches_hub(hub)
    assert hub.body_requests(WEIGHTS_PATH)[-1].range == f"bytes={kept}-"


def _run_in_thread(download: DownloadJob) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def target() -> None:
        try:
            download.run()
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    return thread, errors


def _wait_for_part(size: int, timeout: float = 10.0) -> None:
    import time

    part = staging() / (WEIGHTS + ".part")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if part.exists() and part.stat().st_size >= size:
            return
        time.sleep(0.01)
    raise AssertionError("the download did not get going")


def test_cancel_removes_the_partial_files(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.throttle_bps = 500_000
    control = TransferControl()
    thread, errors = _run_in_thread(job(settings, control=control))
    _wait_for_part(50_000)
    control.cancel()
    thread.join(10)
    assert len(errors) == 1 and isinstance(errors[0], DownloadStopped) and errors[0].reason == "cancel"
    assert not staging().exists()
    assert list_unfinished() == []
    assert_nothing_installed()


def test_cancel_during_a_stall_is_immediate(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.stall_after[WEIGHTS_PATH] = [100_000]
    control = TransferControl()
    thread, errors = _run_in_thread(job(fast_settings(hub, stall_timeout_s=30.0), control=control))
    # The part file is written through a buffer, so up to one buffer's worth of the 100,000 bytes sent before the
    # stall may not be on disk yet: wait for what is surely there.
    _wait_for_part(100_000 - 2 * io.DEFAULT_BUFFER_SIZE)
    control.cancel()
    thread.join(5)
    assert not thread.is_alive() and isinstance(errors[0], DownloadStopped)
    assert not staging().exists()


def test_pause_keeps_the_part_and_resume_continues(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.throttle_bps = 500_000
    control = TransferControl()
    thread, errors = _run_in_thread(job(settings, control=control))
    _wait_for_part(50_000)
    control.pause()
    thread.join(10)
    assert isinstance(errors[0], DownloadStopped) and errors[0].reason == "pause"
    assert_nothing_installed()
    [unfinished] = list_unfinished()
    kept = (staging() / (WEIGHTS + ".part")).stat().st_size
    assert unfinished.done_bytes >= kept > 0 and unfinished.total_bytes > unfinished.done_bytes
    hub.faults.throttle_bps = None
    DownloadJob(unfinished.request(), settings=settings).run()
    check_installed_matches_hub(hub)
    assert hub.body_requests(WEIGHTS_PATH)[-1].range == f"bytes={kept}-"


def test_a_changed_upstream_file_drops_its_stale_part(hub: FakeHub, settings: HubSettings) -> None:
    hub.faults.drop_after[WEIGHTS_PATH] = [100_000] + [0] * 10
    with pytest.raises(HubError):
        job(settings).run()
    repo = hub.repos[REPO]
    repo.files[WEIGHTS_PATH] = bytes(reversed(repo.files[WEIGHTS_PATH]))
    repo.commit = "f" * 40
    hub.faults.drop_after.clear()
    job(settings).run()
    check_installed_matches_hub(hub)
    assert hub.body_requests(WEIGHTS_PATH)[-1].range is None


def test_already_installed_and_concurrent_downloads(hub: FakeHub, settings: HubSettings) -> None:
    job(settings).run()
    with pytest.raises(UserFacingError, match="already installed"):
        job(settings).run()
    with (
        DownloadLock(paths.staging_dir() / "other.lock", "other"),
        pytest.raises(HubError, match="already being downloaded"),
    ):
        DownloadJob(DownloadRequest(REPO, model_id="other"), settings=settings).run()
    assert [m.id for m in list_installed()] == [MODEL_ID]


def test_a_download_stopped_before_its_files_were_known_is_kept_to_resume(hub: FakeHub, settings: HubSettings) -> None:
    """The connection lost while the repo was listed: no plan yet, but the download is still listed (a restart reads
    the disk) and resumes from what was asked."""
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{closed.getsockname()[1]}"  # bound, not listening: connections are refused
        with pytest.raises(HubError):
            job(fast_settings(hub, endpoint=dead, connect_timeout_s=0.5)).run()
    unfinished = list_unfinished()
    assert [(u.model_id, u.repo, u.done_bytes) for u in unfinished] == [(MODEL_ID, REPO, 0)]
    assert unfinished[0].request() == DownloadRequest(REPO, model_id=MODEL_ID, name="Tiny")
    DownloadJob(unfinished[0].request(), settings=settings).run()
    check_installed_matches_hub(hub)
    assert list_unfinished() == []
    assert not any(p.name.startswith(".localmind-request") for p in get_installed(MODEL_ID).folder.iterdir())


def test_a_download_cancelled_or_refused_before_its_files_were_known_leaves_nothing(
    hub: FakeHub, settings: HubSettings
) -> None:
    control = TransferControl()
    control.cancel()
    with pytest.raises(DownloadStopped):
        job(settings, control=control).run()
    with pytest.raises(HubError):
        DownloadJob(DownloadRequest("localmind-tests/no-such-repo", model_id="nothing"), settings=settings).run()
    assert list_unfinished() == []
    assert not staging().exists() and not (paths.staging_dir() / "nothing").exists()
