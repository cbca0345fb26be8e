"""Show the chat view with a sample conversation and save a screenshot.

    python scripts/chat_view_demo.py OUT.png [--dark] [--size 1000x1400] [--stream] [--show]

Run it under a real display (Xvfb :99 & then DISPLAY=:99) for faithful fonts; QT_QPA_PLATFORM=offscreen
also works. The sample covers Markdown, code, a table, CJK, emoji and a hostile answer (remote image,
raw HTML and a script), which must show as text and load nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from localmind.ui.chat_view import ChatView


@dataclass
class DemoMessage:
    id: int
    role: str
    content: str
    status: str = "complete"


ANSWER = """Here is a small **Python** function that reads a file and counts the words in it:

```python
from collections import Counter
from pathlib import Path


def word_counts(path: Path, top: int = 3) -> list[tuple[str, int]]:
    \"\"\"The most common words in a text file.\"\"\"
    words = Path(path).read_text(encoding="utf-8").lower().split()
    return Counter(words).most_common(top)  # e.g. [("the", 42), ...]
```

### How it works
1. `read_text` loads the whole file (fine up to a few hundred MB).
2. `split()` cuts on any whitespace.
3. `Counter.most_common` sorts by frequency.

| Approach | Memory | Speed |
|----------|--------|-------|
| `read_text` + `split` | whole file | fast |
| line by line | one line | a bit slower |

See the [Counter documentation](https://docs.python.org/3/library/collections.html#collections.Counter) for more."""

CJK = """当然可以！以下是三种语言的问候：

- 中文：你好，世界 🌏
- 日本語：こんにちは、世界 🗾
- 한국어：안녕하세요, 세계 🇰🇷

> 提示：所有文本都在本地处理，不会上传到任何服务器。🔒"""

HOSTILE = """I found this picture for you: ![a cat](http://127.0.0.1:9/cat.png)

<img src="http://127.0.0.1:9/track.gif"> <script>alert("hi")</script> <b>not bold</b>

[Open settings](file:///etc/passwd) · [Project site](https://example.org)"""


def sample_messages() -> list[DemoMessage]:
    return [
        DemoMessage(1, "user", "Write a Python function that counts the words in a text file."),
        DemoMessage(2, "assistant", ANSWER),
        DemoMessage(3, "user", "用中文、日语和韩语打个招呼 👋"),
        DemoMessage(4, "assistant", CJK),
        DemoMessage(5, "user", "Show me an image from the internet."),
        DemoMessage(6, "assistant", HOSTILE, "stopped"),
    ]


def light_palette() -> QPalette:
    try:  # the app's own theme when present, so the screenshot matches the real window
        from localmind.ui.theme import LIGHT, palette_for

        return palette_for(LIGHT)
    except ImportError:
        return QApplication.style().standardPalette()


def dark_palette() -> QPalette:
    try:
        from localmind.ui.theme import DARK, palette_for

        return palette_for(DARK)
    except ImportError:
        palette = QPalette()
        for role, value in {
            QPalette.ColorRole.Window: "#1f2023",
            QPalette.ColorRole.WindowText: "#ececf1",
            QPalette.ColorRole.Base: "#1f2023",
            QPalette.ColorRole.Text: "#ececf1",
            QPalette.ColorRole.Button: "#2b2c31",
            QPalette.ColorRole.ButtonText: "#ececf1",
            QPalette.ColorRole.Highlight: "#6d68f2",
            QPalette.ColorRole.HighlightedText: "#ffffff",
            QPalette.ColorRole.Link: "#8480f6",
        }.items():
            palette.setColor(role, QColor(value))
        return palette


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", help="PNG file to write")
    parser.add_argument("--dark", action="store_true", help="use a dark palette")
    parser.add_argument("--size", default="1000x1500", help="window size, WIDTHxHEIGHT")
    parser.add_argument("--stream", action="store_true", help="stream the last answer in before the screenshot")
    parser.add_argument("--show", action="store_true", help="keep the window open after saving")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setStyle(QStyleFactory.create("Fusion"))
    font = QFont(app.font())
    font.setPointSizeF(10.5)
    app.setFont(font)
    app.setPalette(dark_palette() if args.dark else light_palette())

    view = ChatView()
    view.setWindowTitle("LocalMind — chat view demo")
    view.resize(width, height)
    view.link_clicked.connect(lambda url: print("link clicked:", url.toString()))
    messages = sample_messages()
    if args.stream:
        view.set_messages(messages[:-1])
        view.append_message(DemoMessage(6, "assistant", "", "streaming"))
    else:
        view.set_messages(messages)
    view.show()

    def stream_rest() -> None:
        chunks = [HOSTILE[i : i + 7] for i in range(0, len(HOSTILE), 7)]
        for chunk in chunks:
            view.append_to_last(chunk)
            app.processEvents()
        view.update_message(6, status="stopped")

    def save() -> None:
        if args.stream:
            stream_rest()
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:  # let layout and scrolling settle
            app.processEvents()
        view.grab().save(args.output)
        print("saved", args.output)
        if not args.show:
            app.quit()

    QTimer.singleShot(300, save)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
