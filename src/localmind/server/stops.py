"""OpenAI ``stop`` sequences over a text stream.

The engine streams text in pieces; a stop sequence may straddle two pieces. The filter holds back the tail
that could still be the start of a stop sequence, and reports when one is complete: the text before it is the
reply, the stop sequence itself and everything after are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence


class StopFilter:
    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = [s for s in stops if s]
        self._held = ""
        self.stopped = False

    def feed(self, text: str) -> str:
        """Text that is safe to send now. After a stop sequence is seen, always ''."""
        if self.stopped:
            return ""
        if not self._stops:
            return text
        buffer = self._held + text
        hits = [i for i in (buffer.find(s) for s in self._stops) if i >= 0]
        if hits:
            self.stopped = True
            self._held = ""
            return buffer[: min(hits)]
        keep = 0
        for stop in self._stops:
            for n in range(min(len(stop) - 1, len(buffer)), 0, -1):
                if buffer.endswith(stop[:n]):
                    keep = max(keep, n)
                    break
        self._held = buffer[len(buffer) - keep :] if keep else ""
        return buffer[: len(buffer) - keep]

    def flush(self) -> str:
        """The held-back tail, once the stream has ended without completing a stop sequence."""
        held, self._held = self._held, ""
        return "" if self.stopped else held
