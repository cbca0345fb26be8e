"""Where things are in a real ``localmind`` window under Xvfb, so a test can click them with real X mouse events.

The app, started with ``LOCALMIND_TEST_WIDGETS=FILE`` (and ``LOCALMIND_TEST_HOOKS=1``), writes its visible widgets
(class, object name, text, enabled, screen rectangle, rich-text links) to FILE every 200 ms (tests/helpers/app_hooks.py).
This only tells the test WHERE to click; the click goes through the X server (xdotool), the window manager and Qt's
own input handling, exactly as a person's does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers.xwindow import AppWindow, XDisplay, wait_until

Row = dict[str, Any]


def widget_env(report: Path) -> dict[str, str]:
    return {"LOCALMIND_TEST_HOOKS": "1", "LOCALMIND_TEST_WIDGETS": str(report)}


class Widgets:
    def __init__(self, x: XDisplay, app: AppWindow, report: Path) -> None:
        self.x = x
        self.app = app
        self.report = report

    def rows(self) -> list[Row]:
        try:
            return list(json.loads(self.report.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return []

    def find(self, text: str | None = None, *, contains: str | None = None, cls: str | None = None,
             window: str | None = None, enabled: bool | None = None, name: str | None = None) -> Row | None:  # fmt: skip
        """The first visible widget matching everything given (``text`` exact, ``contains`` a part of it, ``name`` its
        object name)."""
        for row in self.rows():
            if name is not None and row.get("name") != name:
                continue
            shown = str(row.get("text", ""))
            if text is not None and shown != text:
                continue
            if contains is not None and contains not in shown:
                continue
            if cls is not None and row["class"] != cls:
                continue
            if window is not None and row["window"] != window:
                continue
            if enabled is not None and row["enabled"] != enabled:
                continue
            return row
        return None

    def wait(self, what: str, timeout: float = 30.0, **match: Any) -> Row:
        """A matching widget once it shows and has stayed in the same place for two reports (layout settled)."""
        seen: list[Any] = []

        def settled() -> Row | None:
            row = self.find(**match)
            seen.append(row["rect"] if row else None)
            return row if row and len(seen) > 2 and seen[-2] == seen[-1] else None

        return self.app.wait_until(settled, timeout, what)  # type: ignore[no-any-return]

    def click(self, what: str, timeout: float = 30.0, **match: Any) -> Row:
        """Click the middle of a matching, enabled widget with the real mouse."""
        row = self.wait(what, timeout, enabled=True, **match)
        x, y, width, height = row["rect"]
        self.x.click(x + width // 2, y + height // 2)
        return row

    def click_link(self, href_prefix: str, text: str = "", timeout: float = 30.0) -> Row:
        """Click the first rich-text link whose target starts with ``href_prefix`` and whose text contains ``text``
        (on its first character)."""

        def link() -> Row | None:
            for row in self.rows():
                for found in row.get("links", ()):
                    if str(found["href"]).startswith(href_prefix) and text in str(found["text"]):
                        return dict(found)
            return None

        found = self.app.wait_until(link, timeout, f"a link to {href_prefix}")
        x, y, width, height = found["rect"]
        self.x.click(x + max(width // 2, 1), y + height // 2)
        return found  # type: ignore[no-any-return]


def colour_share(png: Path, rect: list[int], colours: list[str], tolerance: int = 40) -> float:
    """The share of pixels in ``rect`` (x, y, w, h on the screenshot) within ``tolerance`` of one of ``colours``."""
    from PIL import Image

    targets = [tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in colours]
    x, y, width, height = rect
    with Image.open(png) as image:
        raw = image.convert("RGB").crop((x, y, x + width, y + height)).tobytes()
    pixels = [tuple(raw[i : i + 3]) for i in range(0, len(raw), 3)]
    close = sum(
        1 for p in pixels if any(sum(abs(a - b) for a, b in zip(p, t, strict=True)) <= tolerance for t in targets)
    )
    return close / max(len(pixels), 1)


__all__ = ["Widgets", "colour_share", "wait_until", "widget_env"]
