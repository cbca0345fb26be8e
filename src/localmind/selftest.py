"""``localmind --self-test [--model DIR]``: prove that this copy of LocalMind can start.

Run on every built bundle (and by users who report a problem). It starts a real
QApplication (offscreen unless ``QT_QPA_PLATFORM`` says otherwise), shows the
main window, imports the engine, loads and runs the model when one is given —
in this process and in the engine's child process, which is where a frozen app
breaks first — checks that the data folder is writable and asks the keyring.
It prints one line per check and exits 0 when nothing failed (warnings allowed).

The window comes from the integration hook ``localmind.app.create_main_window``::

    def create_main_window(args: argparse.Namespace) -> QWidget:
        '''Build the main window exactly as the app does, wired to its services.

        A QApplication already exists; do not start the event loop. Closing the
        returned window must stop its threads and child processes.
        '''

Until that hook exists the self-test shows ``localmind.ui.main_window.MainWindow()``
if it can be built without arguments, else a placeholder (reported as a warning).
A hook or window that exists but fails to import or build is a failure: in a
frozen bundle that is how a missing module shows up.

Environment:
    LOCALMIND_SELFTEST_REPORT      also write the report to this file (windowed
                                   Windows builds have no stdout)
    LOCALMIND_SELFTEST_SCREENSHOT  save a picture of the window to this PNG
    LOCALMIND_SELFTEST_TIMEOUT     give up after this many seconds (default 120)
"""

from __future__ import annotations

import argparse
import base64
import importlib
import os
import platform
import shutil
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from localmind import APP_NAME, __version__, paths

Status = Literal["PASS", "WARN", "FAIL", "SKIP"]
WINDOW_HOOK = "localmind.app.create_main_window"
PROBE_SERVICE = f"{APP_NAME} self-test"
KEYRING_TIMEOUT_S = 10.0
GENERATE_TOKENS = 8


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    seconds: float = 0.0


class CheckFailed(Exception):
    """Raised inside a check to report a failure with a clear one-line reason."""


class CheckWarning(Exception):
    """Raised inside a check that works in a degraded way (the reason is reported)."""


# An ONNX graph y = x + x (float32 [n]), for the embedder's runtime check.
_DOUBLE_GRAPH = "CAg6PgoOCgF4CgF4EgF5IgNBZGQSCHNlbGZ0ZXN0WhAKAXgSCwoJCAESBQoDEgFuYhAKAXkSCwoJCAESBQoDEgFuQgQKABAN"


def _tiny_pdf(text: str) -> bytes:
    """A one-page PDF that shows ``text`` (ASCII) in Helvetica."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__


class SelfTest:
    """Runs the checks in order; each one is timed and can only fail itself."""

    def __init__(self, args: argparse.Namespace, emit: Callable[[str], None]) -> None:
        self.args = args
        self.model: str | None = getattr(args, "model", None)
        self.starter = False
        if not self.model:
            from localmind.core.starter import starter_model_dir

            starter = starter_model_dir()  # a build that carries a model tests it, as its first launch loads it
            self.model, self.starter = (str(starter), True) if starter is not None else (None, False)
        self.emit = emit
        self.checks: list[Check] = []
        self.app: Any = None

    def run(self) -> list[Check]:
        self._check("qt", self.start_qt)
        self._check("fonts", self.check_fonts)
        self._check("data folder", self.check_data_dir)
        self._check("keyring", self.check_keyring)
        self._check("engine", self.check_engine_import)
        if self.model:
            self._check("model", self.check_model)
        else:
            self.checks.append(Check("model", "SKIP", "no --model given"))
            self.emit(format_check(self.checks[-1]))
        self._check("engine process", self.check_engine_process)
        self._check("documents", self.check_documents)
        self._check("window", self.check_window)
        return self.checks

    def _check(self, name: str, func: Callable[[], str]) -> None:
        started = time.perf_counter()
        status: Status = "PASS"
        try:
            detail = func()
        except CheckWarning as exc:
            status, detail = "WARN", str(exc)
        except CheckFailed as exc:
            status, detail = "FAIL", str(exc)
        except Exception as exc:  # anything unforeseen is a failure of this check, not of the whole run
            status, detail = "FAIL", _one_line(exc)
        check = Check(name, status, detail, time.perf_counter() - started)
        self.checks.append(check)
        self.emit(format_check(check))

    # -- checks --------------------------------------------------------------------------------------------------
    def start_qt(self) -> str:
        from PySide6 import __version__ as pyside_version
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance()
        if app is None:
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
            app = QApplication([sys.argv[0] if sys.argv else APP_NAME.lower()])
            app.setApplicationName(APP_NAME)
        self.app = app
        return f"PySide6 {pyside_version}, platform {QApplication.platformName()}"

    def check_fonts(self) -> str:
        from PySide6.QtGui import QFontDatabase

        chinese = QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
        if not chinese:
            raise CheckWarning(
                "no font for Chinese/Japanese/Korean: such text shows as boxes "
                "(Linux: install fonts-noto-cjk or fonts-wqy-microhei)"
            )
        return f"{len(QFontDatabase.families())} families, CJK: {chinese[0]}"

    def check_data_dir(self) -> str:
        try:
            folder = paths.ensure_data_dir()
            probe = folder / f".selftest-{os.getpid()}"
            payload = f"{APP_NAME} self-test 你好\n".encode()
            with open(probe, "wb") as fh:
                fh.write(payload)
                fh.flush()
                os.fsync(fh.fileno())
            same = probe.read_bytes() == payload
            probe.unlink()
        except OSError as exc:
            raise CheckFailed(f"{paths.data_dir()} is not writable: {_one_line(exc)}") from exc
        if not same:
            raise CheckFailed(f"{folder}: a file written there read back differently")
        free_gb = shutil.disk_usage(folder).free / 1e9
        return f"{folder} writable, {free_gb:.1f} GB free"

    def check_keyring(self) -> str:
        import keyring
        import keyring.errors

        backend = keyring.get_keyring()
        name = f"{type(backend).__module__}.{type(backend).__name__}"
        if name.startswith("keyring.backends.fail"):
            raise CheckWarning(f"no system keyring ({name}): secrets such as access tokens cannot be saved")
        if name.startswith("keyrings.alt"):
            raise CheckWarning(f"{name} keeps secrets in a plain file, not a system keyring")
        outcome: list[BaseException | None] = []

        def probe() -> None:
            try:
                keyring.get_password(PROBE_SERVICE, "probe")  # read only: nothing is stored
                outcome.append(None)
            except BaseException as exc:
                outcome.append(exc)

        thread = threading.Thread(target=probe, name="keyring-probe", daemon=True)
        thread.start()
        thread.join(KEYRING_TIMEOUT_S)
        if not outcome:
            raise CheckWarning(f"{name} did not answer within {KEYRING_TIMEOUT_S:.0f} s")
        error = outcome[0]
        if isinstance(error, keyring.errors.KeyringLocked):
            raise CheckWarning(f"{name} is locked: secrets are saved once the user unlocks it")
        if error is not None:
            raise CheckWarning(f"{name} answered with an error: {_one_line(error)}")
        return f"{name} answers"

    def check_engine_import(self) -> str:
        import onnxruntime_genai as og

        og_any: Any = og
        if hasattr(og_any, "disable_telemetry_events"):
            og_any.disable_telemetry_events()
        build = getattr(og_any, "__id__", "onnxruntime-genai")
        runtime = os.environ.get("ORT_LIB_PATH")  # set by og when it locates ONNX Runtime (Linux, macOS)
        where = f", ONNX Runtime {Path(runtime).name}" if runtime else ""
        return f"{build} {og_any.__version__}{where}"

    def check_documents(self) -> str:
        """Text from PDF, Word and HTML files, and the embedder's ONNX Runtime: the libraries "Use my documents"
        needs, several of which a frozen build could leave out without anything else noticing."""
        import tempfile

        import numpy as np

        from localmind.documents.extract import extract, html_to_text
        from localmind.documents.ort_capi import CApiSession, api

        phrase = "LocalMind self-test"
        with tempfile.TemporaryDirectory() as tmp:
            pdf = Path(tmp) / "check.pdf"
            pdf.write_bytes(_tiny_pdf(phrase))
            if phrase not in extract(pdf)[0].text:
                raise CheckFailed("the PDF's text was not read")
            import docx

            document = docx.Document()
            document.add_paragraph(phrase)
            word = Path(tmp) / "check.docx"
            document.save(str(word))
            if phrase not in extract(word)[0].text:
                raise CheckFailed("the Word document's text was not read")
            if phrase not in html_to_text(f"<p>{phrase}</p>".encode()):
                raise CheckFailed("the HTML text was not read")
            graph = Path(tmp) / "double.onnx"
            graph.write_bytes(base64.b64decode(_DOUBLE_GRAPH))
            session = CApiSession(graph)
            try:
                [doubled] = session.run(None, {"x": np.array([1.5, -2.0], np.float32)})
            finally:
                session.close()
            if doubled.tolist() != [3.0, -4.0]:
                raise CheckFailed(f"ONNX Runtime's C API gave {doubled.tolist()} for 2 × [1.5, -2]")
        return f"PDF, Word and HTML text; ONNX Runtime {api().version} C API for the embedding model"

    def check_model(self) -> str:
        from localmind.engine.local import LocalEngine
        from localmind.engine.types import (
            ChatMessage,
            FinishReason,
            GenerationOptions,
            LoadOptions,
            TextDelta,
            TurnFinished,
        )

        assert self.model is not None
        engine = LocalEngine()
        try:
            info = engine.load(self.model, LoadOptions(context_budget=512))
            options = GenerationOptions(temperature=0.0, max_new_tokens=GENERATE_TOKENS)
            pieces: list[str] = []
            finished: TurnFinished | None = None
            for event in engine.generate([ChatMessage("user", "Hello")], options):
                if isinstance(event, TextDelta):
                    pieces.append(event.text)
                else:
                    finished = event
        finally:
            engine.close()
        if finished is None or finished.reason is FinishReason.ERROR:
            raise CheckFailed(f"generation failed: {finished.error if finished else 'no end of turn'}")
        if finished.stats.generated_tokens == 0:
            raise CheckFailed("the model generated no tokens")
        text = "".join(pieces)
        return (
            ("the bundled starter model: " if self.starter else "")
            + f"{info.model_name} on {info.device}, loaded in {info.load_s:.2f} s; "
            f"{finished.stats.generated_tokens} tokens at {finished.stats.tokens_per_second:.0f} tok/s: {text[:40]!r}"
        )

    def check_engine_process(self) -> str:
        from localmind.engine.process import EngineProcess
        from localmind.engine.types import ChatMessage, EngineError, GenerationOptions, LoadOptions, TurnFinished

        engine = EngineProcess()
        try:
            if not self.model:
                # No model: the child still has to start, import the engine and answer.
                try:
                    engine.count_tokens([ChatMessage("user", "hi")])
                except EngineError as exc:
                    if "No model is loaded" not in exc.message:
                        raise CheckFailed(f"the engine's child process failed: {exc}") from exc
                    return "child process started and answered"
                raise CheckFailed("the engine's child process answered without a model")
            info = engine.load(self.model, LoadOptions(context_budget=512))
            options = GenerationOptions(temperature=0.0, max_new_tokens=4)
            events = list(engine.generate([ChatMessage("user", "Hello")], options))
        finally:
            engine.close()
        last = events[-1] if events else None
        if not isinstance(last, TurnFinished) or last.error or last.stats.generated_tokens == 0:
            raise CheckFailed(f"generation in the child process failed: {last}")
        return f"child process loaded the model on {info.device} and generated {last.stats.generated_tokens} tokens"

    def check_window(self) -> str:
        from PySide6.QtWidgets import QApplication

        if self.app is None:
            raise CheckFailed("Qt did not start")
        window, source, degraded = build_window(self.args)
        try:
            window.show()
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline:
                QApplication.processEvents()
                handle = window.windowHandle()
                if window.isVisible() and handle is not None and handle.isExposed():
                    break
                time.sleep(0.01)
            else:
                raise CheckFailed(f"{source} was not shown within 5 s")
            picture = window.grab()
            if picture.isNull() or picture.width() == 0:
                raise CheckFailed(f"{source} drew nothing")
            shot = os.environ.get("LOCALMIND_SELFTEST_SCREENSHOT")
            if shot:
                QApplication.processEvents()
                screen = window.screen()
                # The whole screen where there is one (Xvfb): the window as the user sees it.
                full = screen.grabWindow(0) if QApplication.platformName() not in ("offscreen", "minimal") else picture
                (full if not full.isNull() else picture).save(shot)
            detail = f"{source} shown, {picture.width()}x{picture.height()}, title {window.windowTitle()!r}"
        finally:
            window.close()
            window.deleteLater()
            QApplication.processEvents()
        if degraded:
            raise CheckWarning(f"{detail}; {degraded}")
        return detail


def build_window(args: argparse.Namespace) -> tuple[Any, str, str]:
    """The window to show: (widget, where it came from, why it is not the real window or '')."""
    try:
        app_module = importlib.import_module("localmind.app")
    except ModuleNotFoundError as exc:
        if exc.name != "localmind.app":
            raise
        app_module = None
    factory = getattr(app_module, "create_main_window", None)
    if factory is not None:
        return factory(args), WINDOW_HOOK, ""
    try:
        from localmind.ui.main_window import MainWindow
    except ModuleNotFoundError as exc:
        if exc.name not in ("localmind.ui", "localmind.ui.main_window"):
            raise
    else:
        try:
            return MainWindow(), "MainWindow()", f"{WINDOW_HOOK} is missing (the window was built without its services)"
        except TypeError:
            pass  # it needs its services: only the hook can build it
    from PySide6.QtWidgets import QLabel

    placeholder = QLabel(f"{APP_NAME} {__version__}")
    placeholder.setWindowTitle(APP_NAME)
    placeholder.resize(480, 320)
    return placeholder, "placeholder window", f"{WINDOW_HOOK} is missing: the real window was not tested"


def format_check(check: Check) -> str:
    timing = f" ({check.seconds:.2f} s)" if check.seconds >= 0.01 else ""
    return f"  {check.status:4}  {check.name:15} {check.detail}{timing}"


def header() -> str:
    frozen = "frozen bundle" if getattr(sys, "frozen", False) else "Python environment"
    return (
        f"{APP_NAME} {__version__} self-test: {frozen} at {Path(sys.executable).parent}, "
        f"Python {platform.python_version()}, {platform.system()} {platform.machine()}"
    )


def summary(checks: list[Check], seconds: float) -> str:
    failed = [c.name for c in checks if c.status == "FAIL"]
    warned = [c.name for c in checks if c.status == "WARN"]
    if failed:
        return f"Self-test FAILED in {seconds:.1f} s: {', '.join(failed)}"
    note = f" with warnings: {', '.join(warned)}" if warned else ""
    return f"Self-test passed in {seconds:.1f} s{note}"


def run_self_test(args: argparse.Namespace) -> int:
    """Run every check, print the report, and return the exit code (0: nothing failed)."""
    lines: list[str] = []
    report_path = os.environ.get("LOCALMIND_SELFTEST_REPORT")

    def emit(line: str) -> None:
        lines.append(line)
        print(line, flush=True)

    def save_report() -> None:
        if report_path:
            Path(report_path).write_text("\n".join(lines) + "\n", encoding="utf-8")

    timeout = float(os.environ.get("LOCALMIND_SELFTEST_TIMEOUT", "120"))

    def give_up() -> None:
        emit(f"Self-test FAILED: no result after {timeout:.0f} s (a check hangs)")
        save_report()
        os._exit(1)

    watchdog = threading.Timer(timeout, give_up)
    watchdog.daemon = True
    watchdog.start()
    started = time.perf_counter()
    try:
        emit(header())
        checks = SelfTest(args, emit).run()
        emit(summary(checks, time.perf_counter() - started))
    finally:
        watchdog.cancel()
        save_report()
    return 1 if any(c.status == "FAIL" for c in checks) else 0


__all__ = ["WINDOW_HOOK", "Check", "SelfTest", "build_window", "run_self_test"]
