"""Unsent text in the message box, per conversation, kept across restarts (issue 10.12).

A small JSON file beside the database (``drafts.json``), written a moment after typing stops and when the app
closes, atomically (a temporary file renamed over the old one): a crash leaves the previous drafts, never half a file.
The key of the chat not started yet is ``""``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

log = logging.getLogger(__name__)

SAVE_DELAY_MS = 700
MAX_DRAFT_CHARS = 1_000_000  # a pasted book is kept up to here; beyond it the box still has it until closing
MAX_DRAFTS = 200  # drafts of chats long gone do not pile up


class Drafts(QObject):
    """Drafts by conversation id; ``set`` saves a moment later, ``flush`` now."""

    def __init__(self, path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self._drafts: dict[str, str] = self._read()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self.flush)

    def _read(self) -> dict[str, str]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("Unsent drafts could not be read from %s: %s", self.path, exc)
            return {}
        if not isinstance(raw, dict):
            return {}
        return {str(k): v for k, v in raw.items() if isinstance(v, str) and v.strip()}

    def get(self, key: str) -> str:
        return self._drafts.get(key, "")

    def set(self, key: str, text: str) -> None:
        if text.strip():
            self._drafts.pop(key, None)
            self._drafts[key] = text[:MAX_DRAFT_CHARS]  # the newest last: the oldest go first when there are many
            while len(self._drafts) > MAX_DRAFTS:
                del self._drafts[next(iter(self._drafts))]
        elif key in self._drafts:
            del self._drafts[key]
        else:
            return
        self._timer.start()

    def flush(self) -> None:
        """Write the drafts now (also when the app closes)."""
        self._timer.stop()
        temporary = self.path.with_name(self.path.name + ".tmp")
        try:
            temporary.write_text(json.dumps(self._drafts, ensure_ascii=False), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as exc:
            # A full or read-only disk: the text is still in the box; only its survival of a restart is at risk.
            log.warning("Unsent drafts could not be saved to %s: %s", self.path, exc)
            with contextlib.suppress(OSError):
                temporary.unlink()
