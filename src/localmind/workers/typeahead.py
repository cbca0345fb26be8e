"""Type-ahead: while the user types, the engine reads the chat and the message so far (issue 12).

On a CPU the wait before the first word of a reply is the prompt being read, and it grows with the
message. The user spends seconds typing it while the engine sits idle, so after a short pause in typing
(longer than the typist's rhythm, at most ``IDLE_MS``) the engine is asked to read the conversation plus the message as typed so far into its KV
cache. On Enter only the last words and the reply header are left.

Nothing guessed is ever sent: the engine reads ahead only up to a word boundary a few characters before
the end, and at send time it keeps exactly the cached tokens the real prompt has (compared token by token)
and reads the rest. Opening a conversation reads its history right away (warm reopen). A send, Stop, a
model change or the next keystroke's prefill stop the one in flight at its next chunk.

With "Use my documents" on, the read is the turn as it will be sent: the passages a search of the draft finds,
then the question (issue 19; the search runs on the engine service's thread, see ``documents_turn``).

The setting "Prepare replies while I type" turns it off; it is also off while the computer runs on
battery, where the system says so.
"""

from __future__ import annotations

import ctypes
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from localmind.engine.types import ChatMessage
from localmind.workers.inference import InferenceService

IDLE_MS = 300  # the longest pause after which the whole message is read, as if Enter came next
# A pause is "longer than this person's typing rhythm": PAUSE_FACTOR times the median time between their recent keys,
# within [MIN_IDLE_MS, IDLE_MS]. The whole read (the last word and the reply header) takes ~0.28 s on the Qwen3-0.6B
# shape with 2,400 tokens of context on 2 cores, so the sooner after the last key it starts, the less of it is left
# when Enter comes; but a read started between two keys of a word is wasted (the next key changes the word).
PAUSE_FACTOR = 1.5
MIN_IDLE_MS = 120
RHYTHM_KEYS = 12  # recent gaps between keys kept for the rhythm; longer ones (> RHYTHM_MAX_GAP_S) are not typing
RHYTHM_MAX_GAP_S = 1.0
# After the end of a sentence (a question mark…) Enter is likely next: the whole message is read at once. If typing
# goes on, the next read drops the reply header again (a few tokens).
SENTENCE_END_MS = 30
SENTENCE_ENDS = frozenset(".?!。？！…")
# After a space or a new line: a word is finished, so what the engine may read ahead has grown. Reading it at once,
# not at the next pause, leaves a person typing without pauses only the last words to read after Enter.
WORD_MS = 100
BATTERY_CHECK_S = 60.0
clock = time.monotonic  # when keys come (the rhythm); a test sets its own


class TypeAhead(QObject):
    """Schedules type-ahead prefills. The app feeds it the composer's text and tells it when chats change.

    ``history`` gives the open conversation as the engine sees it (None: nothing to prepare, e.g. no
    model); ``draft`` gives the composer's text, or None while it edits an earlier message.
    """

    def __init__(
        self,
        service: InferenceService,
        history: Callable[[], list[ChatMessage] | None],
        draft: Callable[[], str | None],
        enabled: Callable[[], bool],
        parent: QObject | None = None,
        on_battery: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._history = history
        self._draft = draft
        self._enabled = enabled
        self._on_battery = on_battery or BatteryCheck()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.prepare_now)
        self._whole = True  # the next prefill reads the whole draft and the reply header (after a pause)
        self._last_key: float | None = None
        self._gaps: deque[float] = deque(maxlen=RHYTHM_KEYS)
        self.requests = 0  # prefills asked for (tests and the bench read it)
        # Documents read-ahead (issue 19): given the draft, a function the engine service runs before the read that
        # returns the user's turn as it will be sent (the draft's passages, then the question); None: the draft alone.
        self.documents_turn: Callable[[str], Callable[[], str | None] | None] | None = None

    @property
    def active(self) -> bool:
        return self._enabled() and self._service.can_prefill and not self._on_battery()

    def text_changed(self) -> None:
        """The composer's text changed: prepare once typing pauses, or soon after a finished word."""
        if self.active:
            now = clock()
            if self._last_key is not None and now - self._last_key <= RHYTHM_MAX_GAP_S:
                self._gaps.append(now - self._last_key)
            self._last_key = now
            draft = self._draft() or ""
            # Soon after a finished word: the words so far. After a pause, or at once after the end of a sentence:
            # all of it, and the reply header, as if Enter came next (then Enter reads nothing).
            self._whole = not draft[-1:].isspace()
            if not self._whole:
                self._timer.start(WORD_MS)
            elif draft[-1:] in SENTENCE_ENDS:
                self._timer.start(SENTENCE_END_MS)
            else:
                self._timer.start(self.pause_ms())

    def pause_ms(self) -> int:
        """How long without a key counts as a pause for this typist (see PAUSE_FACTOR)."""
        if len(self._gaps) < 3:
            return IDLE_MS
        rhythm = statistics.median(self._gaps) * 1000
        return round(min(IDLE_MS, max(MIN_IDLE_MS, PAUSE_FACTOR * rhythm)))

    def chat_changed(self) -> None:
        """Another conversation is open, a reply ended or the model is ready: prepare its history now."""
        if self.active:
            self._whole = True
            self._timer.start(0)

    def stop(self) -> None:
        self._timer.stop()

    def prepare_now(self) -> None:
        if not self.active:
            return
        history = self._history()
        draft = self._draft()
        if history is None or draft is None:
            return
        compose = self.documents_turn(draft) if self.documents_turn is not None and draft.strip() else None
        asked = (
            self._service.prefill(history, draft, self._whole, compose=compose)
            if compose is not None
            else self._service.prefill(history, draft, self._whole)
        )
        if asked:
            self.requests += 1


class BatteryCheck:
    """Whether the computer runs on battery, where the system tells us (Linux sysfs, Windows); else False.

    Read at most once a minute: it is asked on every pause in typing.
    """

    def __init__(self) -> None:
        self._checked_at = -BATTERY_CHECK_S
        self._value = False

    def __call__(self) -> bool:
        now = time.monotonic()
        if now - self._checked_at >= BATTERY_CHECK_S:
            self._checked_at = now
            self._value = on_battery()
        return self._value


def on_battery(power_supply: Path = Path("/sys/class/power_supply")) -> bool:
    if sys.platform.startswith("linux"):
        return _linux_on_battery(power_supply)
    if sys.platform == "win32":
        return _windows_on_battery()
    return False


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""


def _linux_on_battery(root: Path) -> bool:
    try:
        supplies = list(root.iterdir())
    except OSError:
        return False
    mains = [s for s in supplies if _read(s / "type") == "Mains"]
    if any(_read(s / "online") == "1" for s in mains):
        return False
    batteries = [s for s in supplies if _read(s / "type") == "Battery" and _read(s / "scope") != "Device"]
    return any(_read(s / "status") == "Discharging" for s in batteries)


def _windows_on_battery() -> bool:
    class _PowerStatus(ctypes.Structure):
        _fields_ = [
            ("ACLineStatus", ctypes.c_ubyte),
            ("BatteryFlag", ctypes.c_ubyte),
            ("BatteryLifePercent", ctypes.c_ubyte),
            ("SystemStatusFlag", ctypes.c_ubyte),
            ("BatteryLifeTime", ctypes.c_ulong),
            ("BatteryFullLifeTime", ctypes.c_ulong),
        ]

    status = _PowerStatus()
    try:
        windll = getattr(ctypes, "windll")  # noqa: B009 - absent off Windows
        if not windll.kernel32.GetSystemPowerStatus(ctypes.byref(status)):
            return False
    except (AttributeError, OSError):
        return False
    return bool(status.ACLineStatus == 0)


__all__ = ["IDLE_MS", "WORD_MS", "TypeAhead", "on_battery"]
