"""A model that cannot be loaded, in the real window under Xvfb, in English and in Chinese.

The real ``localmind --model DIR`` starts on a copy of the tiny model whose genai_config.json is cut short. The
check runs in the engine's own process (the error crosses its pipe as source texts and values); the window shows it
in the UI's language. What the window shows is read from the app's widget report (``LOCALMIND_TEST_WIDGETS``), as a
person would read the banner. Screenshots go to build/screenshots/ (LOCALMIND_SCREENSHOTS to choose).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.documents.xwidgets import Widgets, widget_env
from tests.helpers.xwindow import x_display

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("LOCALMIND_SCREENSHOTS", REPO / "build" / "screenshots"))

# What the banner says about the damaged file, per language (the folder's path and the parser's words are values).
EXPECTED = {
    "en": (
        "genai_config.json in {folder} is not valid JSON (line ",
        "Download the model again, or pick another folder.",
    ),
    "zh_CN": ("{folder} 中的 genai_config.json 不是有效的 JSON（第 ", "请重新下载模型，或选择其他文件夹。"),
}
TITLE = {"en": "The model could not be loaded.", "zh_CN": "无法加载模型。"}


def damaged_model(tiny_model: Path, folder: Path) -> Path:
    shutil.copytree(tiny_model, folder)
    config = (folder / "genai_config.json").read_text(encoding="utf-8")
    (folder / "genai_config.json").write_text(config[: len(config) // 2], encoding="utf-8")  # a download cut short
    return folder


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_damaged_model_is_explained_in_the_ui_language(tmp_path: Path, tiny_model: Path, language: str) -> None:
    model = damaged_model(tiny_model, tmp_path / "broken-model")
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"language": language}), encoding="utf-8")
    report = tmp_path / "widgets.json"
    start, advice = (text.format(folder=model) for text in EXPECTED[language])
    with x_display() as x:
        app = x.start_app(data, model, env=widget_env(report))
        widgets = Widgets(x, app, report)
        banner = widgets.wait("the load error in the banner", 90, contains=start, cls="QLabel")
        shown = str(banner["text"])
        assert advice in shown
        assert widgets.find(TITLE[language], cls="QLabel") is not None
        if language == "zh_CN":
            assert "is not valid JSON" not in shown and "Download the model again" not in shown
        app.activate()
        x.screenshot(SHOTS / f"error-language-load-{language}.png", app.window)
        app.close()
