"""Progress of one download: bytes, speed and time left, reported at a steady pace."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

# Phases a download goes through, in order.
LISTING = "listing"
DOWNLOADING = "downloading"
PREPARING = "preparing"  # onnx-community models: writing genai_config.json, rewriting the graph for speed
INSTALLING = "installing"
DONE = "done"

SPEED_WINDOW_S = 5.0
# A status (a retry, a damaged file) stays this long at least once bytes flow again: the window shows the latest
# progress only (it skips reports while busy), so one cleared at the next chunk could be skipped unseen.
STATUS_HOLD_S = 3.0


@dataclass(frozen=True)
class DownloadProgress:
    model_id: str
    phase: str
    done_bytes: int
    total_bytes: int
    speed_bps: float  # over the last few seconds
    eta_s: float | None  # None while the speed is unknown
    current_file: str = ""
    files_done: int = 0
    files_total: int = 0
    status: str = ""  # e.g. "connection problem; retrying in 4 s"

    @property
    def fraction(self) -> float:
        return self.done_bytes / self.total_bytes if self.total_bytes else 0.0


ProgressCallback = Callable[[DownloadProgress], None]


class ProgressTracker:
    """Counts bytes from the download thread and calls back at most every ``interval_s`` (and on every change of phase)."""

    def __init__(
        self,
        model_id: str,
        callback: ProgressCallback | None,
        interval_s: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.model_id = model_id
        self._callback = callback
        self._interval = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self.phase = LISTING
        self.done = 0
        self.total = 0
        self.files_done = 0
        self.files_total = 0
        self.current_file = ""
        self.status = ""
        self._status_at = 0.0
        self._samples: deque[tuple[float, int]] = deque()
        self._last_emit = 0.0

    def start(self, total: int, already: int, files_total: int, files_done: int) -> None:
        with self._lock:
            self.total, self.done = total, already
            self.files_total, self.files_done = files_total, files_done
            self._samples.clear()
            self._samples.append((self._clock(), already))
        self.set_phase(DOWNLOADING)

    def set_phase(self, phase: str, status: str = "") -> None:
        with self._lock:
            self.phase, self.status, self._status_at = phase, status, self._clock()
        self.emit(force=True)

    def set_file(self, path: str) -> None:
        with self._lock:
            self.current_file = path
        self.emit(force=True)

    def file_done(self) -> None:
        with self._lock:
            self.files_done += 1
        self.emit(force=True)

    def set_status(self, status: str) -> None:
        with self._lock:
            self.status, self._status_at = status, self._clock()
        self.emit(force=True)

    def add(self, n: int) -> None:
        with self._lock:
            self.done = max(0, self.done + n)
            if n > 0 and self.status and self._clock() - self._status_at >= STATUS_HOLD_S:
                self.status = ""  # bytes flow again: whatever went wrong is over
        self.emit()

    def snapshot(self) -> DownloadProgress:
        with self._lock:
            now = self._clock()
            self._samples.append((now, self.done))
            while len(self._samples) > 2 and now - self._samples[0][0] > SPEED_WINDOW_S:
                self._samples.popleft()
            t0, b0 = self._samples[0]
            speed = (self.done - b0) / (now - t0) if now - t0 > 0.2 and self.done >= b0 else 0.0
            remaining = max(0, self.total - self.done)
            eta = remaining / speed if speed > 0 else (0.0 if remaining == 0 else None)
            return DownloadProgress(
                model_id=self.model_id,
                phase=self.phase,
                done_bytes=self.done,
                total_bytes=self.total,
                speed_bps=speed,
                eta_s=eta,
                current_file=self.current_file,
                files_done=self.files_done,
                files_total=self.files_total,
                status=self.status,
            )

    def emit(self, force: bool = False) -> None:
        if self._callback is None:
            return
        now = self._clock()
        if not force and now - self._last_emit < self._interval:
            return
        self._last_emit = now
        self._callback(self.snapshot())
