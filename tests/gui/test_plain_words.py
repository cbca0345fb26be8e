"""Words a first-time user meets on the welcome page, in the wrong-folder error and in the device tooltip are plain;
the technical detail (file names, library names) is one click or one "Details" line away (issue 21)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from localmind.engine.types import LoadInfo
from localmind.engine.validate import validate_model_folder
from localmind.errors import Phrase, UserFacingError
from localmind.ui.status_bar import StatusBar
from localmind.ui.welcome import WelcomePage

pytestmark = pytest.mark.gui
TECHNICAL = ("genai_config", "onnxruntime", "ONNX Runtime", "Optimum", ".so", "model manager")


def test_the_welcome_card_is_plain_and_the_formats_are_behind_details(qtbot: Any) -> None:
    page = WelcomePage()
    qtbot.addWidget(page)
    page.resize(900, 700)
    page.show()
    qtbot.waitExposed(page)
    card = page.folder_card
    assert not any(word in card.text.text() for word in TECHNICAL), card.text.text()
    assert not card.details.isVisible() and card.details_button.isVisible()
    card.details_button.click()
    assert card.details.isVisible() and "genai_config.json" in card.details.text()
    card.details_button.click()
    assert not card.details.isVisible()


def test_a_folder_without_a_model_is_explained_in_plain_words(tmp_path: Path) -> None:
    with pytest.raises(UserFacingError) as raised:
        validate_model_folder(tmp_path)
    text = str(raised.value)
    assert "does not hold a model LocalMind can open" in text
    assert "Models page" in text
    assert "model manager" not in text and "onnxruntime-genai model folder" not in text


def test_the_device_tooltip_says_why_in_plain_words_and_names_the_library_under_details(qtbot: Any) -> None:
    status = StatusBar()
    qtbot.addWidget(status)
    why = Phrase(
        "Cuda interface not available: {library} is not installed (this is not a CUDA build of onnxruntime-genai)",
        library="libonnxruntime-genai-cuda.so",
    )
    status.set_model(
        LoadInfo(model_dir="/m/phi", model_name="phi", model_type="phi3", device="cpu",
                 fallback_reasons=(("cuda", why),), context_budget=4096)
    )  # fmt: skip
    tip = status.device_label.toolTip()
    plain, _, details = tip.partition("Details:")
    assert "does not include the support for it" in plain
    assert "libonnxruntime" not in plain
    assert "libonnxruntime-genai-cuda.so" in details
