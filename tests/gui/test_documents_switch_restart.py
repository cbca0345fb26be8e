""" "Use my documents" is as the user left it after a restart (issue 21: it was on before and off after)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from localmind.settings import load_settings
from tests.helpers.app_window import Launch, fake, launch_fixture

pytestmark = pytest.mark.gui


@pytest.fixture
def launch(qtbot: Any, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def test_use_my_documents_stays_on_after_a_restart(qtbot: Any, launch: Launch) -> None:
    first = launch("/models/fake", engine=fake("ok"), settings=load_settings())
    assert first.documents is not None
    assert not first.documents.switch.isChecked() and not first.documents.chat.enabled  # off on a first run
    first.documents.switch.click()
    assert first.documents.chat.enabled
    first.window.close()

    again = launch("/models/fake", engine=fake("ok"), settings=load_settings())
    assert again.documents is not None
    assert again.documents.switch.isChecked()
    assert again.documents.chat.enabled and again.documents.switch.text().startswith("✓")

    again.documents.switch.click()  # and off stays off
    again.window.close()
    third = launch("/models/fake", engine=fake("ok"), settings=load_settings())
    assert third.documents is not None
    assert not third.documents.switch.isChecked() and not third.documents.chat.enabled
