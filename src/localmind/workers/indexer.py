"""Indexing documents in the background: jobs queued, run one at a time in the app's task runner, cancel by token.

The worker opens its own connection to the index (SQLite in WAL mode lets the window read while it writes) and its
own embedder. Each file is committed on its own, so Cancel — or a kill — loses at most the file in progress, and the
files still waiting are picked up by ``resume`` at the next start. Folders the user added are watched: a change in
one queues a rescan of that folder (a ``stat`` per unchanged file), and files gone from it are forgotten.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from localmind.documents.chunking import TokenCounter, approximate_tokens, tokenizer_counter
from localmind.documents.index import AddResult, Cancelled
from localmind.documents.library import Library
from localmind.workers.messages import user_text
from localmind.workers.tasks import SHUTDOWN, Task, TaskContext, TaskRunner

log = logging.getLogger(__name__)

RESCAN_DELAY_MS = 1500  # an editor saving a file fires several change events; index once they settle
MAX_WATCHED_FILES = 4000
PROGRESS_INTERVAL_S = 0.1


class IndexerWorker:
    """Runs one job at a time in a task of the runner; keeps the index and the embedder open between jobs."""

    def __init__(self, index_path: Path | None) -> None:
        self.index_path = index_path
        self.library: Library | None = None
        self.count: TokenCounter = approximate_tokens  # the loaded chat model's tokenizer once there is one

    def _library(self) -> Library:
        if self.library is None:
            self.library = Library.open(self.index_path)
        return self.library

    def run_job(self, job: Job, ctx: TaskContext) -> tuple[AddResult, bool]:
        """Do ``job``; returns what it did and whether it was cancelled (it stops after the file in progress)."""
        kind, files, collection = job.kind, [Path(p) for p in job.paths], job.collection
        cancelled = lambda: ctx.cancelled  # noqa: E731 - the library asks between files
        reported = [0.0]

        def report(done: int, total: int, path: Path) -> None:
            now = time.monotonic()
            if now - reported[0] < PROGRESS_INTERVAL_S and done not in (0, total):
                return  # the window needs a few updates a second, not one per file of a 1,000-file folder
            reported[0] = now
            ctx.progress((done, total, path.name))

        result = AddResult(failed=[])
        library = self._library()
        try:
            if kind == "add":
                result = library.add(files, collection, count=self.count, progress=report, cancelled=cancelled)
            elif kind == "resume":
                result = library.resume(count=self.count, progress=report, cancelled=cancelled)
                library.embed_missing(cancelled)
            elif kind == "rescan":
                gone = [Path(r.path) for r in library.index.files() if not Path(r.path).exists()]
                if gone:
                    library.remove(gone)
                existing = [f for f in files if f.exists()]
                if existing:
                    result = library.add(existing, collection, count=self.count, progress=report, cancelled=cancelled)
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
                    progress=report,
                    cancelled=cancelled,
                )
            elif kind == "embedder":  # an embedding model was installed: use it, and embed what is indexed
                library.use_embedder(files[0])
                library.embed_missing(cancelled)
            elif kind == "remove":
                _, chunks = library.remove(files)
                result.removed_chunks = chunks
        except Cancelled:
            return result, True
        return result, False

    def close(self) -> None:
        if self.library is not None:
            self.library.close()
            self.library = None


@dataclass(frozen=True)
class Job:
    kind: str  # add, resume, rescan, reindex, embedder, remove
    paths: tuple[str, ...]
    collection: str


class IndexerService(QObject):
    """The window's handle on indexing: queue jobs, cancel, watch folders, shut down.

    Jobs run one after another, each a task of the app's task runner (its callbacks come on the GUI thread, it is
    drained at shutdown); the index is one SQLite file, written by one job at a time.

    Signals:
        busy_changed(bool), progress(int, int, str), job_finished(object AddResult, bool cancelled), failed(str)
    """

    busy_changed = Signal(bool)
    progress = Signal(int, int, str)
    job_finished = Signal(object, bool)
    failed = Signal(str)

    def __init__(
        self, index_path: Path | None = None, parent: QObject | None = None, *, tasks: TaskRunner | None = None
    ) -> None:
        super().__init__(parent)
        self.tasks = tasks if tasks is not None else TaskRunner(self)
        self.worker = IndexerWorker(index_path)
        self._queue: deque[Job] = deque()
        self._running: Task[tuple[AddResult, bool]] | None = None
        self._counter = 0
        self._closed = False
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
        if self._closed:
            return
        self.jobs += 1
        if self.jobs == 1:
            self.busy_changed.emit(True)
        self._queue.append(Job(kind, tuple(paths or ()), collection))
        self._next()

    def _next(self) -> None:
        if self._running is not None or not self._queue or self._closed:
            return
        job = self._queue.popleft()
        self._counter += 1
        task = self.tasks.start(
            lambda ctx: self.worker.run_job(job, ctx),
            key=f"documents-index:{self._counter}",
            on_success=lambda outcome: self._on_finished(*outcome),
            on_failure=self._on_failed,
            on_progress=lambda p: self.progress.emit(*p),
            on_cancelled=lambda _reason: self._on_finished(AddResult(failed=[]), True),
        )
        if task is None:  # the runner is shut down: the app is closing
            self._queue.clear()
            return
        self._running = task

    def use_tokenizer_of(self, model_dir: str | None) -> None:
        """Size new passages in this chat model's tokens (read from its tokenizer.json; approximate without one)."""
        self.worker.count = tokenizer_counter(model_dir)

    def cancel(self) -> None:
        """Stops the job in flight after its current file (the job checks its cancel token per file)."""
        if self._running is not None:
            self._running.cancel()

    def _on_finished(self, result: AddResult, cancelled: bool) -> None:
        self._job_done()
        self.job_finished.emit(result, cancelled)

    def _on_failed(self, exc: BaseException) -> None:
        # Reported to the window; the index keeps every file committed so far.
        log.error("indexing failed", exc_info=(type(exc), exc, exc.__traceback__))
        self._job_done()
        self.failed.emit(user_text(exc))  # a UserFacingError in the UI's language; a bug's own words

    def _job_done(self) -> None:
        self._running = None
        self.jobs = max(0, self.jobs - 1)
        if self.jobs == 0:
            self.busy_changed.emit(False)
        self._next()

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
        """Stop the job in flight, drop the queued ones, wait for it (at most ``wait_ms``), close the index."""
        self._closed = True
        self._queue.clear()
        self._rescan.stop()
        running, self._running = self._running, None
        if running is not None:
            running.cancel(SHUTDOWN)
            if running.thread is not None:
                running.thread.join(wait_ms / 1000)
                if running.thread.is_alive():
                    log.warning("the indexer did not stop in %d ms", wait_ms)
                    return  # it still uses the index: the process exit closes it
        self.worker.close()
