"""Crashes leave a trace: a log file in the data folder for every unexpected exception, and for native crashes.

Without this, an exception escaping a Qt slot is printed to a terminal nobody
sees (the installed app has none) and the app carries on in an unknown state;
an exception in a worker thread ends that thread silently; a crash in native
code (og, Qt) leaves nothing at all.

:func:`install` sets ``sys.excepthook`` (the GUI thread, and Qt slots: PySide
hands a slot's exception to it) and ``threading.excepthook`` (Python threads),
and turns on :mod:`faulthandler` into a file in the crash folder, so a native
crash's stack is there at the next start (:func:`take_native_crash` picks it up).
Each Python crash is written to its own log, then handed to ``notify`` — from the
thread where it happened: the GUI side must marshal it (ui/crash_dialog.py does).

No Qt here: the CLI can use it too.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import platform
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from localmind import __version__

log = logging.getLogger(__name__)

CRASH_DIR_NAME = "crashes"
NATIVE_LOG_NAME = "native-crash.log"  # faulthandler writes here while the app runs; empty unless it crashed
MAX_LOGS = 50  # older crash logs are deleted: a crash loop must not fill the disk


@dataclass(frozen=True)
class CrashReport:
    path: Path  # the log file, already written
    text: str  # what it holds
    summary: str  # one line: the exception's type and message
    thread: str  # where it happened


Notify = Callable[[CrashReport], None]


class CrashHandler:
    """The installed hooks; :meth:`uninstall` puts the previous ones back (tests)."""

    def __init__(self, crash_dir: Path, notify: Notify | None) -> None:
        self.crash_dir = crash_dir
        self.notify = notify
        self.reports: list[CrashReport] = []
        self._lock = threading.Lock()
        self._previous_hook = sys.excepthook
        self._previous_thread_hook = threading.excepthook
        self._native_file: IO[str] | None = None
        self._faulthandler_was_enabled = faulthandler.is_enabled()

    # -- hooks ----------------------------------------------------------------------------------------------------
    def excepthook(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            self._previous_hook(exc_type, exc, tb)
            return
        self.record(exc_type, exc, tb, threading.current_thread().name)

    def thread_excepthook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        name = args.thread.name if args.thread is not None else threading.current_thread().name
        self.record(args.exc_type, args.exc_value, args.exc_traceback, name)

    def record(
        self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None, thread: str
    ) -> CrashReport | None:
        """Write the log and notify. Never raises: a failing crash handler would hide the crash it handles."""
        summary = "".join(traceback.format_exception_only(exc_type, exc)).strip()
        body = "".join(traceback.format_exception(exc_type, exc, tb))
        # Still on stderr, for whoever runs it from a terminal.
        with contextlib.suppress(Exception):
            sys.stderr.write(body)
        try:
            text = _header(f"Unexpected error in thread {thread!r}") + body
            path = self._write(text)
        except Exception:
            log.exception("Could not write the crash log")
            return None
        report = CrashReport(path=path, text=text, summary=summary, thread=thread)
        with self._lock:
            self.reports.append(report)
        if self.notify is not None:
            try:
                self.notify(report)
            except Exception:
                log.exception("Could not show the crash report")
        return report

    def _write(self, text: str) -> Path:
        self.crash_dir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        with self._lock:
            for n in range(1000):
                path = self.crash_dir / f"crash-{stamp}-{os.getpid()}-{n}.log"
                if not path.exists():
                    break
            path.write_text(text, encoding="utf-8")
        _prune(self.crash_dir)
        return path

    # -- install --------------------------------------------------------------------------------------------------
    def _install(self) -> None:
        sys.excepthook = self.excepthook
        threading.excepthook = self.thread_excepthook
        try:
            self.crash_dir.mkdir(parents=True, exist_ok=True)
            # Kept open for the life of the process: faulthandler writes to its descriptor from a signal handler.
            self._native_file = open(self.crash_dir / NATIVE_LOG_NAME, "w", encoding="utf-8")  # noqa: SIM115
            self._native_file.write(_header("LocalMind stopped: a crash in native code"))
            self._native_file.flush()
            faulthandler.enable(self._native_file, all_threads=True)
        except OSError as exc:
            log.warning("Native crashes will not be logged: %s", exc)

    def uninstall(self) -> None:
        sys.excepthook = self._previous_hook
        threading.excepthook = self._previous_thread_hook
        if self._native_file is not None:
            faulthandler.disable()
            if self._faulthandler_was_enabled:
                faulthandler.enable()
            self._native_file.close()
            # A clean exit: nothing crashed, so nothing is offered at the next start.
            with contextlib.suppress(OSError):
                (self.crash_dir / NATIVE_LOG_NAME).unlink()
            self._native_file = None


def install(data_dir: Path, notify: Notify | None = None) -> CrashHandler:
    """Install the hooks, logging under ``data_dir/crashes``. Call :meth:`CrashHandler.uninstall` at a clean exit."""
    handler = CrashHandler(data_dir / CRASH_DIR_NAME, notify)
    handler._install()
    return handler


def take_native_crash(data_dir: Path) -> CrashReport | None:
    """The stack faulthandler wrote when the previous run crashed in native code, kept as a crash log; else ``None``.

    Call before :func:`install` (which starts a fresh native log). A previous run that exited
    cleanly removed its native log; one that was killed (``kill -9``, power cut) left only the header.
    """
    crash_dir = data_dir / CRASH_DIR_NAME
    native = crash_dir / NATIVE_LOG_NAME
    try:
        text = native.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    with contextlib.suppress(OSError):
        native.unlink()
    if "File " not in text and "Fatal Python error" not in text:
        return None  # only the header: killed from outside, not a crash
    path = crash_dir / f"crash-native-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    try:
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    first = next((line for line in text.splitlines() if line.startswith("Fatal Python error")), "A native crash")
    return CrashReport(path=path, text=text, summary=first.strip(), thread="")


def _header(title: str) -> str:
    return (
        f"{title}\n"
        f"time: {time.strftime('%Y-%m-%d %H:%M:%S %z')}\n"
        f"LocalMind {__version__}, Python {platform.python_version()}, {platform.platform()}"
        f"{', frozen' if getattr(sys, 'frozen', False) else ''}\n"
        f"{_versions()}\n\n"
    )


def _versions() -> str:
    parts: list[str] = []
    for module in ("PySide6", "onnxruntime_genai"):
        mod: Any = sys.modules.get(module)
        version = getattr(mod, "__version__", None) if mod is not None else None
        if version:
            parts.append(f"{module} {version}")
    return ", ".join(parts) or "(no Qt or engine loaded)"


def _prune(crash_dir: Path) -> None:
    with contextlib.suppress(OSError):
        logs = sorted(crash_dir.glob("crash-*.log"), key=lambda p: p.stat().st_mtime)
        for old in logs[:-MAX_LOGS]:
            old.unlink()


__all__ = ["CRASH_DIR_NAME", "CrashHandler", "CrashReport", "install", "take_native_crash"]
