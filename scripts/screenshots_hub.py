"""Screenshots of the model manager's Hub search, in the real window under Xvfb, against the fake hub.

    python scripts/screenshots_hub.py [--out docs/screenshots]

Saves ``hub-search-<lang>.png`` (results of "smollm2" with their verdicts, English and Chinese) and
``hub-unsupported-en.png`` (an unsupported architecture selected: why it cannot run). The repos are the project's
fake hub on 127.0.0.1 (tests/helpers/fake_hub.py) with onnx-community layouts and made-up download counts; no
picture contacts Hugging Face.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

SIZE = (1280, 800)
LLAMA = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 576,
    "intermediate_size": 1536,
    "num_hidden_layers": 30,
    "num_attention_heads": 9,
    "num_key_value_heads": 3,
    "vocab_size": 49152,
    "tie_word_embeddings": True,
}
LLAMA_360 = {**LLAMA, "hidden_size": 960, "intermediate_size": 2560, "num_hidden_layers": 32, "num_attention_heads": 15}
LLAMA_360["num_key_value_heads"] = 5
VLM = {"model_type": "idefics3", "architectures": ["Idefics3ForConditionalGeneration"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    parser.add_argument("--worker", nargs=2, metavar=("LANG", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return take(args.worker[0], Path(args.worker[1]))
    from screenshots import start_xvfb  # the README screenshots' own Xvfb helper

    args.out.mkdir(parents=True, exist_ok=True)
    xvfb, display = start_xvfb()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOCALMIND_", "QT_QPA"))}
    env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", LANG="en_US.UTF-8", PYTHONPATH=str(REPO / "src"))
    failed = 0
    try:
        for language in ("en", "zh_CN"):
            result = subprocess.run(
                [sys.executable, __file__, "--worker", language, str(args.out)], env=env, timeout=180
            )
            failed += result.returncode != 0
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=10)
    return 1 if failed else 0


def take(language: str, out: Path) -> int:
    from huggingface_hub import constants
    from PySide6.QtGui import QCursor
    from PySide6.QtWidgets import QApplication
    from tests.helpers.fake_hub import FakeHub, FakeRepo, community_repo_files

    from localmind import paths
    from localmind.app import create_app
    from localmind.settings import Settings, save_settings

    constants.HF_HUB_OFFLINE = False
    hub = FakeHub()
    for repo, config, downloads, likes in (
        ("onnx-community/SmolLM2-135M-Instruct-ONNX", LLAMA, 48_211, 64),
        ("onnx-community/SmolLM2-360M-Instruct-ONNX", LLAMA_360, 21_870, 31),
        ("onnx-community/SmolLM2-VL-demo-ONNX", VLM, 9_342, 40),
        (
            "onnx-community/SmolLM2-1.7B-Instruct-ONNX",
            {
                **LLAMA,
                "hidden_size": 2048,
                "num_hidden_layers": 24,
                "num_attention_heads": 32,
                "num_key_value_heads": 32,
                "intermediate_size": 8192,
            },
            5_120,
            22,
        ),
    ):
        hub.add_repo(FakeRepo(repo, community_repo_files(config=config), info={"downloads": downloads, "likes": likes}))
    hub.start()
    os.environ["HF_ENDPOINT"] = hub.endpoint
    paths.set_data_dir(Path(tempfile.mkdtemp(prefix="localmind-hub-shots-")))
    save_settings(Settings(theme="light", language=language))  # type: ignore[arg-type]
    mind = create_app(None)
    app = QApplication.instance()
    assert app is not None

    def settle(seconds: float = 0.5) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    def shoot(name: str) -> None:
        QCursor.setPos(SIZE[0] - 2, 2)
        settle()
        target = out / f"{name}-{language}.png"
        mind.window.grab().save(str(target))
        print(f"  {target}")

    window = mind.window
    window.setGeometry(0, 0, *SIZE)
    window.show()
    window.show_model_manager()
    page = window.model_manager
    panel = page.search  # type: ignore[union-attr]
    panel.input.setText("smollm2")
    panel.start_search()
    end = time.monotonic() + 30
    while "✓" not in panel.note.text() and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)
    settle(0.5)
    page.scroll_area.ensureWidgetVisible(panel, 0, 0)  # type: ignore[union-attr]
    page.scroll_area.verticalScrollBar().setValue(panel.y() - 10)  # type: ignore[union-attr]
    panel.select_repo("onnx-community/SmolLM2-135M-Instruct-ONNX")
    shoot("hub-search")
    if language == "en":
        panel.select_repo("onnx-community/SmolLM2-VL-demo-ONNX")
        panel.download_button.click()
        shoot("hub-unsupported")
    window.close()
    hub.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
