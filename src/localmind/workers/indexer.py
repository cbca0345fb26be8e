"""Indexing documents in the background: one worker QObject in its own QThread, jobs queued, cancel by flag.

The worker opens its own connection to the index (SQLite in WAL mode lets the window read while it writes) and its
own embedder. Each file is committed on its own, so Cancel — or a kill — loses at most the file in progress, and the
files still waiting are picked up by ``resume`` at the next start. Folders the user added are watched: a change in
one queues a rescan of that folder (a ``stat`` per unchanged file), and files gone from it are forgotten.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QThread, QTimer, Signal, Slot

from localmind.documents.chunking import TokenCounter, approximate_tokens, tokenizer_counter
from localmind.documents.index import AddResult, Cancelled
from localmind.documents.library import Library
from localmind.workers.messages import user_text

log = logging.getLogger(__name__)

RESCAN_DELAY_MS = 1500  # an editor saving a file fires several change events; index once they settle
MAX_WATCHED_FILES = 4000
PROGRESS_INTERVAL_S = 0.1


class IndexerWorker(QObject):
    """Lives in the indexer thread; the service below talks to it through queued signals.

    Signals:
        progress(int done, int total, str file name)
        finished(object AddResult, bool cancelled)
        failed(str message)
    """

    progress = Signal(int, int, str)
    finished = Signal(object, bool)
    failed = Signal(str)

    def __init__(self, index_path: Path | None, cancel: threading.Event) -> None:
        super().__init__()
        self.index_path = index_path
        self.cancel = cancel
        self.library: Library | None = None
        self._reported = 0.0
        self.count: TokenCounter = approximate_tokens  # the loaded chat model's tokenizer once there is one

    def _library(self) -> Library:
        if self.library is None:
            self.library = Library.open(self.index_path)
        return self.library

    def _report(self, done: int, total: int, path: Path) -> None:
        now = time.monotonic()
        if now - self._reported < PROGRESS_INTERVAL_S and done not in (0, total):
            return  # the window needs a few updates a second, not one per file of a 1,000-file folder
        self._reported = now
        self.progress.emit(done, total, path.name)

    @Slot(str, object, str)
    def run_job(self, kind: str, paths: object, collection: str) -> None:
        self.cancel.clear()
        cancelled = False
        result = AddResult(failed=[])
        try:
            library = self._library()
            files = [Path(p) for p in paths] if isinstance(paths, list) else []
            if kind == "add":
                result = library.add(
                    files, collection, count=self.count, progress=self._report, cancelled=self.cancel.is_set
                )
            elif kind == "resume":
                result = library.resume(count=self.count, progress=self._report, cancelled=self.cancel.is_set)
                library.embed_missing(self.cancel.is_set)
            elif kind == "rescan":
                gone = [Path(r.path) for r in library.index.files() if not Path(r.path).exists()]
                if gone:
                    library.remove(gone)
                existing = [f for f in files if f.exists()]
                if existing:
                    result = library.add(
                        existing, collection, count=self.count, progress=self._report, cancelled=self.cancel.is_set
                    )
            elif kind == "reindex":
                marks = ",".join("?" * len(files))
                library.index.db.execute(
                    f"UPDATE files SET mtime = 0, sha256 = '' WHERE path IN ({marks})", [str(f) for f in files]
                )
                result = library.index.index_files(
                    files,
                    count=self.count,
                    embed=library.embedder.embed_passages_bytes if library.embedder else None,
                    model=library.model_id,
                    progress=self._report,
                    cancelled=self.cancel.is_set,
                )
            elif kind == "embedder":  # an embedding model was installed: use it, and embed what is indexed
                library.use_embedder(files[0])
                library.embed_missing(self.cancel.is_set)
            elif kind == "remove":
                _, chunks = library.remove(files)
                result.removed_chunks = chunks
        except Cancelled:
            cancelled = True
        except Exception as exc:  # reported to the window; the index keeps every file committed so far
            log.exception("indexing failed")
            self.failed.emit(user_text(exc))  # a UserFacingError in the UI's language; a bug's own words
            return
        self.finished.emit(result, cancelled)

    @Slot()
    def close(self) -> None:
        if self.library is not None:
            self.library.close()
            self.library = None


class IndexerService(QObject):
    """The window's handle on the indexer thread: queue jobs, cancel, watch folders, shut down.

    Signals:
        busy_changed(bool), progress(int, int, str), job_finished(object AddResult, bool cancelled), failed(str)
    """

    busy_changed = Signal(bool)
    progress = Signal(int, int, str)
    job_finished = Signal(object, bool)
    failed = Signal(str)
    _job_requested = Signal(str, object, str)
    _close_requested = Signal()

    def __init__(self, index_path: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cancel_flag = threading.Event()
        self.worker_thread = QThread()
        self.worker_thread.setObjectName("documents-indexer")
        self.worker = IndexerWorker(index_path, self.cancel_flag)
        self.worker.moveToThread(self.worker_thread)
        self._job_requested.connect(self.worker.run_job)
        self._close_requested.connect(self.worker.close)
        self.worker.progress.connect(self.progress)
        self.worker.finished.connect(self._on_finished)
        self.worker.failed.connect(self._on_failed)
        self.worker_thread.start()
        self.jobs = 0
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(self._on_changed)
        self.watcher.fileChanged.connect(self._on_changed)
        self._dirty: set[str] = set()
        self._folders: dict[str, str] = {}  # watched folder → collection
        self._rescan = QTimer(self)
        self._rescan.setSingleShot(True)
        self._rescan.setInterval(RESCAN_DELAY_MS)
        self._rescan.timeout.connect(self._rescan_dirty)

    @property
    def busy(self) -> bool:
        return self.jobs > 0

    def submit(self, kind: str, paths: list[str] | None = None, collection: str = "default") -> None:
        self.jobs += 1
        if self.jobs == 1:
            self.busy_changed.emit(True)
        self._job_requested.emit(kind, list(paths or []), collection)

    def use_tokenizer_of(self, model_dir: str | None) -> None:
        """Size new passages in this chat model's tokens (read from its tokenizer.json; approximate without one)."""
        self.worker.count = tokenizer_counter(model_dir)

    def cancel(self) -> None:
        """Stops the job in flight after its current file (thread-safe flag: the worker checks it per file)."""
        self.cancel_flag.set()

    def _on_finished(self, result: AddResult, cancelled: bool) -> None:
        self._job_done()
        self.job_finished.emit(result, cancelled)

    def _on_failed(self, message: str) -> None:
        self._job_done()
        self.failed.emit(message)

    def _job_done(self) -> None:
        self.jobs = max(0, self.jobs - 1)
        if self.jobs == 0:
            self.busy_changed.emit(False)

    # -- watching folders ----------------------------------------------------------------------------------
    def watch(self, folders: list[tuple[str, str]]) -> None:
        self._folders = dict(folders)
        paths: list[str] = []
        for folder in self._folders:
            root = Path(folder)
            if not root.is_dir():
                continue
            paths.append(folder)
            paths.extend(str(d) for d in root.rglob("*") if d.is_dir() and not d.name.startswith("."))
        current = set(self.watcher.directories())
        new = [p for p in paths if p not in current]
        if new:
            self.watcher.addPaths(new)

    def watch_files(self, files: list[str]) -> None:
        current = set(self.watcher.files())
        room = MAX_WATCHED_FILES - len(current)
        new = [f for f in files if f not in current][: max(0, room)]
        if new:
            self.watcher.addPaths(new)

    def _on_changed(self, path: str) -> None:
        self._dirty.add(path)
        self._rescan.start()

    def _rescan_dirty(self) -> None:
        dirty, self._dirty = self._dirty, set()
        for folder, collection in self._folders.items():
            if any(
                p == folder or p.startswith(folder.rstrip("/\\") + "/") or p.startswith(folder + "\\") for p in dirty
            ):
                self.submit("rescan", [folder], collection)
        self.watch(list(self._folders.items()))

    def shutdown(self, wait_ms: int = 5000) -> None:
        self.cancel()
        self._rescan.stop()
        self._close_requested.emit()
        self.worker_thread.quit()
        if not self.worker_thread.wait(wait_ms):
            log.warning("the indexer did not stop in %d ms", wait_ms)
