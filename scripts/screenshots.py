"""Take the README's screenshots of the real window under Xvfb, in English and Chinese, light and dark.

    python scripts/screenshots.py [--out docs/screenshots] [--only en-light]

Starts its own Xvfb (install it with ``scripts/system-deps.sh window``; ``fonts-noto-cjk``
gives Chinese headings a real bold face, which WenQuanYi Micro Hei lacks), then, for
each language and theme, runs the app in a fresh process on a throw-away data
folder and saves ``main-<state>-<lang>-<theme>.png`` for these states:
welcome (first run), ready (a model loaded, a new chat with suggestions),
chat (a Markdown answer with code and CJK), generating
(mid-reply, with Stop), settings (the dialog), load-error (a folder that is not
a model), models (the model manager: the catalog with fit hints for this machine
and the recommended model, an installed model and a download in progress). The
chat content comes from a scripted engine, named "Scripted demo (not a model)"
in the pictures, so every picture shows the same conversation; the load error
comes from the real engine. The model manager shows the tiny test model as the
installed one and downloads a copy of it from the project's fake hub on
127.0.0.1 (tests/helpers/fake_hub.py), throttled so the bar is caught mid-way:
no picture contacts Hugging Face.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SIZE = (1280, 800)
COMBOS = [("en", "light"), ("en", "dark"), ("zh_CN", "light"), ("zh_CN", "dark")]

CONTENT = {
    "en": {
        "older": [
            ("Weekend trip ideas for Kyoto", "Plan two relaxed days in Kyoto in autumn."),
            ("Email to the landlord", "Help me write a polite email about a broken heater."),
            ("Explain compound interest", "Explain compound interest with a small example."),
            ("Sourdough starter schedule", "How often should I feed a sourdough starter?"),
            ("日本語の挨拶", "Teach me five everyday Japanese greetings."),
        ],
        "question": "How do I read a CSV file in Python and add up one column?",
        "answer": (
            "Here is a compact way with the standard library — no extra packages needed:\n\n"
            "```python\nimport csv\n\n\n"
            "def column_total(path: str, column: str) -> float:\n"
            '    with open(path, newline="", encoding="utf-8") as f:\n'
            "        return sum(float(row[column]) for row in csv.DictReader(f))\n\n\n"
            'print(column_total("sales.csv", "amount"))\n```\n\n'
            "### How it works\n"
            "1. `csv.DictReader` reads each row as a dict keyed by the header line.\n"
            "2. The generator converts the column to numbers, and `sum` adds them up.\n\n"
            "| File | Column | Total |\n|---|---|---|\n| sales.csv | amount | 1,284.50 |\n\n"
            "**Tip:** for big files or grouping, *pandas* is handy: `pd.read_csv(path)[column].sum()`. "
            "文件里有中文表头也没问题。"
        ),
        "follow_up": "Can you make it skip rows where the value is missing?",
        "download": "tiny-onnx (from the fake hub)",
        # The scripted engine is named for what it is: its replies are scripted, its speed is no model's.
        "engine": "Scripted demo (not a model)",
        "streaming": (
            "Sure. Check the value before converting it:\n\n"
            '- Strip spaces, so `" "` counts as empty.\n'
            "- Skip the row when nothing is left.\n- Keep a count of skipped rows, so you notice bad data.\n\n"
            "```python\ndef column_total(path, column):\n    total, skipped = 0.0, 0\n"
            '    with open(path, newline="", encoding="utf-8") as f:\n'
            "        for row in csv.DictReader(f):\n"
            "            value = row[column].strip()\n"
            "            if not value:\n                skipped += 1\n                continue\n"
            "            total += float(value)\n    return total, skipped\n```\n"
        ),
    },
    "zh_CN": {
        "older": [
            ("京都周末旅行计划", "帮我规划秋天在京都轻松玩两天。"),
            ("给房东的邮件", "帮我写一封礼貌的邮件，说明暖气坏了。"),
            ("解释复利", "用一个小例子解释复利。"),
            ("酸面团酵头喂养时间表", "酸面团酵头多久喂一次？"),
            ("Everyday English phrases", "教我五个日常英语问候语。"),
        ],
        "question": "怎样用 Python 读取 CSV 文件，并把其中一列加起来？",
        "answer": (
            "用标准库就能简洁地完成，不需要安装额外的包：\n\n"
            "```python\nimport csv\n\n\n"
            "def column_total(path: str, column: str) -> float:\n"
            '    with open(path, newline="", encoding="utf-8") as f:\n'
            "        return sum(float(row[column]) for row in csv.DictReader(f))\n\n\n"
            'print(column_total("销售.csv", "金额"))\n```\n\n'
            "### 原理\n"
            "1. `csv.DictReader` 把每一行读成字典，键是表头。\n"
            "2. 生成器把该列转换成数字，再用 `sum` 求和。\n\n"
            "| 文件 | 列 | 合计 |\n|---|---|---|\n| 销售.csv | 金额 | 1,284.50 |\n\n"
            "**提示：** 文件很大或需要分组统计时，可以用 *pandas*：`pd.read_csv(path)[column].sum()`。"
        ),
        "follow_up": "能不能跳过数值为空的行？",
        "download": "tiny-onnx（来自模拟下载源）",
        "engine": "脚本演示（并非模型）",
        "streaming": (
            "可以。在转换之前先检查一下这个值：\n\n"
            '- 先去掉空格，这样 `" "` 也算空值。\n- 如果什么都不剩，就跳过这一行。\n'
            "- 统计跳过的行数，方便发现有问题的数据。\n\n"
            "```python\ndef column_total(path, column):\n    total, skipped = 0.0, 0\n"
            '    with open(path, newline="", encoding="utf-8") as f:\n'
            "        for row in csv.DictReader(f):\n"
            "            value = row[column].strip()\n"
            "            if not value:\n                skipped += 1\n                continue\n"
            "            total += float(value)\n    return total, skipped\n```\n"
        ),
    },
}


# -- the parent: Xvfb and one worker per combination ----------------------------------------------------------------
def free_display() -> int:
    for number in range(90, 140):
        if not Path(f"/tmp/.X{number}-lock").exists() and not Path(f"/tmp/.X11-unix/X{number}").exists():
            return number
    raise SystemExit("no free X display number between :90 and :139")


def start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise SystemExit("Xvfb is missing: run scripts/system-deps.sh window")
    display = f":{free_display()}"
    proc = subprocess.Popen(
        [xvfb, display, "-screen", "0", f"{SIZE[0]}x{SIZE[1]}x24", "-nolisten", "tcp", "-dpi", "96"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while not Path(f"/tmp/.X11-unix/X{display[1:]}").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"Xvfb did not start on {display}")
        time.sleep(0.05)
    return proc, display


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    parser.add_argument("--only", action="append", help="e.g. en-light (repeatable)")
    parser.add_argument("--worker", nargs=3, metavar=("LANG", "THEME", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        language, theme, out = args.worker
        return take(language, theme, Path(out))

    args.out.mkdir(parents=True, exist_ok=True)
    xvfb, display = start_xvfb()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOCALMIND_", "QT_QPA"))}
    env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", LANG="en_US.UTF-8", PYTHONPATH=str(REPO / "src"))
    failed = 0
    try:
        for language, theme in COMBOS:
            if args.only and f"{language}-{theme}" not in args.only:
                continue
            print(f"{language} {theme}…", flush=True)
            result = subprocess.run(
                [sys.executable, __file__, "--worker", language, theme, str(args.out)], env=env, timeout=180
            )
            failed += result.returncode != 0
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=10)
    print(f"screenshots in {args.out}" + (f"; {failed} run(s) failed" if failed else ""))
    return 1 if failed else 0


# -- a worker: one language and theme ---------------------------------------------------------------------------------
def take(language: str, theme: str, out: Path) -> int:
    from PySide6.QtCore import QPoint, QRect, Qt
    from PySide6.QtGui import QColor, QCursor, QPainter, QPainterPath
    from PySide6.QtWidgets import QApplication, QWidget

    from localmind import paths
    from localmind.app import create_app, create_application
    from localmind.core.store import ConversationStore
    from localmind.engine.fake import FakeEngine
    from localmind.engine.types import LoadInfo, LoadOptions
    from localmind.settings import Settings, save_settings

    class DemoEngine(FakeEngine):
        """The scripted engine, presented as a model folder of the demo's name."""

        def load(self, model_dir: str, options: LoadOptions | None = None) -> LoadInfo:
            info = super().load(model_dir, options)
            # Named for what it is: the replies are scripted, so its speed figures describe no real model.
            self.info = dataclasses.replace(info, model_name=text["engine"], threads=8)
            return self.info

    text = CONTENT[language]
    app = create_application()
    suffix = f"{language}-{theme}"

    def settle(seconds: float = 0.4) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    def wait_for(condition: object, timeout: float = 15) -> None:
        end = time.monotonic() + timeout
        while not condition():  # type: ignore[operator]
            if time.monotonic() > end:
                raise SystemExit(f"timed out waiting in {suffix}")
            app.processEvents()
            time.sleep(0.01)

    def shoot(state: str, dialog: QWidget | None = None) -> None:
        QCursor.setPos(SIZE[0] - 2, 2)  # no hover highlight where the pointer happens to be
        settle()
        picture = QApplication.primaryScreen().grabWindow(0)
        if dialog is not None:
            # Xvfb has no window manager to frame a dialog: dim the window and draw the sheet with a soft shadow.
            picture = mind.window.grab()
            sheet = dialog.grab()
            at = QPoint((SIZE[0] - sheet.width()) // 2, (SIZE[1] - sheet.height()) // 2)
            painter = QPainter(picture)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.fillRect(picture.rect(), QColor(0, 0, 0, 90))
            painter.setPen(Qt.PenStyle.NoPen)
            for spread in range(14, 0, -2):
                painter.setBrush(QColor(0, 0, 0, 10))
                painter.drawRoundedRect(
                    QRect(at, sheet.size()).adjusted(-spread, -spread + 4, spread, spread + 4), 14, 14
                )
            clip = QPainterPath()
            clip.addRoundedRect(QRect(at, sheet.size()).toRectF(), 10, 10)
            painter.setClipPath(clip)
            painter.drawPixmap(at, sheet)
            painter.end()
        target = out / f"main-{state}-{suffix}.png"
        picture.save(str(target))
        print(f"  {target.relative_to(REPO) if target.is_relative_to(REPO) else target}")

    def fresh_data() -> Path:
        folder = Path(tempfile.mkdtemp(prefix="localmind-shots-"))
        paths.set_data_dir(folder)
        settings = Settings(theme=theme, language=language)  # type: ignore[arg-type]
        save_settings(settings)
        return folder

    def place(window: object) -> None:
        window.setGeometry(0, 0, *SIZE)  # type: ignore[attr-defined]
        window.show()  # type: ignore[attr-defined]
        window.splitter.setSizes([272, SIZE[0] - 272])  # type: ignore[attr-defined]

    # 1. First run: no model, no chats.
    fresh_data()
    mind = create_app(None)
    place(mind.window)
    shoot("welcome")
    mind.window.close()

    # 2. A chat with history in the sidebar, an answer with Markdown, code and CJK.
    data = fresh_data()
    store = ConversationStore(data / "conversations.sqlite3")
    for title, question in text["older"]:
        conversation = store.create_conversation(title=title)
        store.append_message(conversation.id, "user", question)
        store.append_message(conversation.id, "assistant", "…")
    store.close()
    engine = DemoEngine(replies=[text["answer"], text["streaming"]], chars_per_token=4)
    mind = create_app("/models/scripted-demo", engine_factory=lambda: engine)
    place(mind.window)
    wait_for(lambda: mind.session.model is not None)
    shoot("ready")
    engine.token_delay_s = 0.004
    mind.window.composer.set_text(text["question"])
    mind.window.composer.submit()
    wait_for(lambda: not mind.session.generating)
    shoot("chat")

    # 3. Mid-reply: the Stop button replaces Send.
    engine.token_delay_s = 0.05
    mind.window.composer.set_text(text["follow_up"])
    mind.window.composer.submit()
    wait_for(lambda: len(mind.window.chat_view.last_assistant_text()) > len(text["streaming"]) * 0.75)
    shoot("generating")
    mind.session.stop()
    wait_for(lambda: not mind.session.generating)

    # 4. Settings.
    dialog = mind.open_settings()
    wait_for(dialog.isVisible)
    shoot("settings", dialog)
    dialog.reject()
    mind.window.close()

    # 5. A folder that is not a model, with the real engine's explanation.
    fresh_data()
    not_a_model = Path(tempfile.gettempdir()) / "localmind-demo" / "Downloads" / "llama-3-8b"
    not_a_model.mkdir(parents=True, exist_ok=True)
    (not_a_model / "model.safetensors").write_bytes(b"\0" * 16)
    mind = create_app(str(not_a_model))
    place(mind.window)
    wait_for(lambda: mind.window.banner.isVisible(), timeout=30)
    shoot("load-error")
    mind.window.close()

    # 6. The model manager, with the tiny test model installed and a copy of it downloading from the fake hub.
    shoot_model_manager(text["download"], fresh_data, place, wait_for, shoot)
    return 0


def shoot_model_manager(download_name: str, fresh_data: Any, place: Any, wait_for: Any, shoot: Any) -> None:
    sys.path.insert(0, str(REPO))  # the fake hub and the tiny model live with the tests
    from tests.helpers.fake_hub import DEVICE_FOLDER, FakeHub, FakeRepo, model_repo_files, pseudo_random_bytes
    from tests.helpers.tiny_model import build_tiny_model

    from localmind.app import create_app
    from localmind.core.hub import DownloadRequest, import_folder

    fresh_data()
    # Where a user might keep a model folder (as in the load-error picture).
    work = Path(tempfile.gettempdir()) / "localmind-demo" / "Downloads"
    shutil.rmtree(work / "tiny-test-model", ignore_errors=True)
    tiny = build_tiny_model(work / "tiny-test-model")
    installed = import_folder(tiny)
    hub = FakeHub()
    weights = {"weights.bin": pseudo_random_bytes(48_000_000)}
    hub.add_repo(FakeRepo("localmind-demo/tiny-onnx", model_repo_files(tiny, extra=weights)))
    hub.faults.throttle_bps = 3_000_000
    hub.start()
    os.environ["HF_ENDPOINT"] = hub.endpoint
    try:
        mind = create_app(None)
        place(mind.window)
        mind.window.show_model_manager()
        page = mind.window.model_manager
        request = DownloadRequest("localmind-demo/tiny-onnx", folder=DEVICE_FOLDER, name=download_name)
        key = page.start_download(request)
        page.select_installed(installed.id)
        wait_for(lambda: page.rows[key].bar.value() >= 350, timeout=60)
        shoot("models")
        page.controller.cancel(key)
        mind.window.close()
    finally:
        hub.stop()
        shutil.rmtree(work / "tiny-test-model", ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
