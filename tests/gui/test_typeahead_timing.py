"""When type-ahead reads (issue 12): a pause is measured against the typist's own rhythm, and the end of a sentence
starts the whole read at once. The clock is the test's, so nothing here depends on the machine's speed."""

from __future__ import annotations

from typing import Any

import pytest

from localmind.engine.types import ChatMessage
from localmind.workers import typeahead
from localmind.workers.typeahead import IDLE_MS, MIN_IDLE_MS, SENTENCE_END_MS, WORD_MS, TypeAhead

pytestmark = pytest.mark.gui


class _Service:
    can_prefill = True

    def __init__(self) -> None:
        self.asked: list[tuple[str, bool]] = []

    def prefill(self, history: list[ChatMessage], draft: str, whole: bool = False) -> bool:
        self.asked.append((draft, whole))
        return True


class _Typist:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = 1000.0
        self.draft = ""
        monkeypatch.setattr(typeahead, "clock", lambda: self.now)
        self.service = _Service()
        self.ahead = TypeAhead(
            self.service,  # type: ignore[arg-type]
            history=lambda: [],
            draft=lambda: self.draft,
            enabled=lambda: True,
            on_battery=lambda: False,
        )

    def key(self, char: str, after_ms: float) -> int:
        """Type ``char`` ``after_ms`` after the last key; returns how long type-ahead now waits before reading."""
        self.now += after_ms / 1000
        self.draft += char
        self.ahead.text_changed()
        return self.ahead._timer.interval()


def test_a_pause_is_longer_than_the_typists_rhythm(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _Typist(monkeypatch)
    for char in "bcdefgh":
        waited_fast = fast.key(char, 60)
    assert waited_fast == MIN_IDLE_MS  # never sooner: a read between two keys of a word would be wasted
    slow = _Typist(monkeypatch)  # (the clock is now this typist's)
    assert slow.key("a", 0) == IDLE_MS  # no rhythm known yet: the longest wait
    for char in "bcdefgh":
        waited_slow = slow.key(char, 160)  # ~6 keys a second
    assert waited_slow == round(typeahead.PAUSE_FACTOR * 160)  # 240 ms: a pause for this typist
    for _ in range(12):
        waited_slow = slow.key("x", 900)  # a hunt-and-peck typist: the wait is capped
    assert waited_slow == IDLE_MS
    slow.key("y", 5000)  # a long break is not typing: it does not change the rhythm
    assert slow.key("z", 900) == IDLE_MS


def test_the_end_of_a_sentence_or_a_word_reads_soon(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    typist = _Typist(monkeypatch)
    for char in "What is it":
        typist.key(char, 150)
    assert typist.key("?", 150) == SENTENCE_END_MS  # Enter is likely next: the whole message is read at once
    assert typist.key(" ", 150) == WORD_MS  # typing goes on: the words so far, soon
    assert typist.key("你", 150) > SENTENCE_END_MS
    assert typist.key("。", 150) == SENTENCE_END_MS
    qtbot.waitUntil(lambda: bool(typist.service.asked), timeout=2000)  # and the timer does ask for the read
    assert typist.service.asked[-1] == ("What is it? 你。", True)
