"""Opening a model that fails keeps the one that worked (issue 9.3): the real engine, the tiny model."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from localmind.ui.welcome import WelcomePage
from tests.helpers import broken_models
from tests.helpers.app_window import Launch, launch_fixture, send_and_wait, stored, tiny_reply

pytestmark = pytest.mark.gui


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


@pytest.mark.parametrize(
    "breakage",
    [broken_models.tokenizer_missing, broken_models.onnx_corrupt],
    ids=["fails-the-checks", "fails-inside-og"],
)
def test_a_broken_folder_leaves_the_working_model_in_use(
    qtbot: Any, launch: Launch, tiny_model: Path, tmp_path: Path, breakage: Callable[[Path, Path], Path]
) -> None:
    mind = launch()
    broken = breakage(tiny_model, tmp_path / "broken")
    with qtbot.waitSignal(mind.service.load_failed, timeout=30000):
        mind.window.model_folder_chosen.emit(str(broken))  # model picker → Open a model folder… → this folder
    banner = mind.window.banner
    assert banner.kind == "error" and banner.title.text() == "The model could not be loaded."
    assert "You are still chatting with tiny." in banner.detail.text()
    # The window never says "Choose a model": Send stays on and the picker names the working model.
    assert mind.session.model is not None and Path(mind.session.model.model_dir) == tiny_model.resolve()
    assert mind.window.welcome.state == WelcomePage.READY
    assert mind.window.model_button.text().startswith("tiny")
    assert mind.window.composer.send_button.isEnabled()
    send_and_wait(qtbot, mind, "Still there?")
    assert stored(mind)[-1] == ("assistant", tiny_reply(tiny_model, [("user", "Still there?")]), "complete")
    assert mind.session.model is not None and Path(mind.session.model.model_dir) == tiny_model.resolve()
    assert not mind.service.loading


def test_a_failed_first_load_still_says_choose_a_model(
    qtbot: Any, launch: Launch, tiny_model: Path, tmp_path: Path
) -> None:
    broken = broken_models.tokenizer_missing(tiny_model, tmp_path / "broken")
    mind = launch(broken, wait=False)
    qtbot.waitUntil(lambda: mind.window.banner.kind == "error", timeout=30000)
    assert mind.session.model is None
    assert not mind.window.composer.send_button.isEnabled()
    assert "still chatting" not in mind.window.banner.detail.text()
