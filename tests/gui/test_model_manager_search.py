"""The model manager's Hub search and its feedback, against the fake hub (issue 8 "Find them"; issue 9 items 4, 6)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from localmind.core import secrets
from localmind.core.catalog import GB, MachineInfo
from localmind.core.hub import HubSettings
from localmind.ui.model_manager import ModelManagerPage
from tests.helpers.fake_hub import FakeHub, FakeRepo, community_repo_files
from tests.helpers.hub_env import allow_hub_access, fast_settings, use_keyring

pytestmark = pytest.mark.gui
SMOL = "onnx-community/SmolLM2-135M-Instruct-ONNX"
SMOL_360 = "onnx-community/SmolLM2-360M-Instruct-ONNX"
VISION = "onnx-community/smollm2-vision-ONNX"
LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 576, "num_hidden_layers": 30}
LLAMA |= {"num_attention_heads": 9, "num_key_value_heads": 3, "vocab_size": 49152, "intermediate_size": 1536}
LLAMA["tie_word_embeddings"] = True


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    allow_hub_access(monkeypatch)
    server = FakeHub()
    server.add_repo(FakeRepo(SMOL, community_repo_files(config=LLAMA), info={"downloads": 700, "likes": 12}))
    server.add_repo(FakeRepo(SMOL_360, community_repo_files(config=LLAMA), info={"downloads": 300, "likes": 5}))
    vision = {"model_type": "idefics3", "architectures": ["Idefics3ForConditionalGeneration"]}
    server.add_repo(FakeRepo(VISION, community_repo_files(config=vision), info={"downloads": 900}))
    with server:
        yield server


def make_page(qtbot: QtBot, settings: HubSettings, monkeypatch: pytest.MonkeyPatch) -> ModelManagerPage:
    use_keyring(monkeypatch)
    page = ModelManagerPage(
        settings=settings,
        machine=MachineInfo(total_ram_bytes=16 * GB, free_disk_bytes=200 * GB),
        confirm=lambda title, detail: True,
    )
    qtbot.addWidget(page)
    page.resize(1000, 700)
    page.show()
    return page


@pytest.fixture
def page(qtbot: QtBot, hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelManagerPage]:
    widget = make_page(qtbot, fast_settings(hub), monkeypatch)
    yield widget
    widget.search.stop()
    widget.controller.shutdown()
    secrets.delete_token()


def search(qtbot: QtBot, page: ModelManagerPage, text: str) -> None:
    page.search.input.setText(text)
    page.search.search_button.click()
    qtbot.waitUntil(lambda: "run on this computer;" in page.search.note.text(), timeout=15_000)


def test_search_shows_results_with_verdicts_without_downloading_weights(
    qtbot: QtBot, hub: FakeHub, page: ModelManagerPage
) -> None:
    search(qtbot, page, "smollm2")
    panel = page.search
    rows = {panel.results[r].repo: r for r in range(panel.table.rowCount())}
    assert panel.table.item(rows[SMOL], 0).text() == "SmolLM2-135M-Instruct-ONNX  ·  onnx-community"
    assert set(rows) == {SMOL, SMOL_360, VISION}
    smol = rows[SMOL]
    assert panel.table.item(smol, 1).text() == "✓ Prepared"
    assert panel.table.item(smol, 2).text().endswith("kB")  # the q4 variant and the small files only
    assert panel.table.item(smol, 3).text() == "135M"  # SmolLM2-135M's shapes
    assert panel.table.item(smol, 5).text() == "700 · ♥ 12"
    vision = rows[VISION]
    assert panel.table.item(vision, 1).text() == "✗ Not supported"
    assert "Idefics3ForConditionalGeneration (idefics3) is not an architecture" in panel.table.item(vision, 1).toolTip()
    assert "2 of 3 results run on this computer" in panel.note.text()
    panel.table.selectRow(vision)
    panel.download_button.click()
    assert "cannot be used" in panel.note.text() and not page.rows  # nothing started
    weights = [p for p in hub.repos[SMOL].files if p.startswith("onnx/")]
    assert all(hub.bytes_served.get(p, 0) == 0 for p in weights)


def test_the_window_stays_responsive_while_results_are_checked(
    qtbot: QtBot, hub: FakeHub, page: ModelManagerPage
) -> None:
    hub.faults.throttle_bps = 2_000  # every config.json takes ~0.1 s: the checks take a while
    page.search.input.setText("smollm2")
    started = time.monotonic()
    page.search.search_button.click()
    assert time.monotonic() - started < 0.5  # the click returns at once: the Hub is asked in the background
    ticks: list[float] = []
    from PySide6.QtCore import QTimer

    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(20)
    qtbot.waitUntil(lambda: "run on this computer;" in page.search.note.text(), timeout=20_000)
    timer.stop()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert gaps and max(gaps) < 0.5, max(gaps)


def test_offline_search_says_it_needs_the_internet(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    allow_hub_access(monkeypatch)
    settings = HubSettings(endpoint="http://127.0.0.1:9", connect_timeout_s=1, max_attempts=1)
    page = make_page(qtbot, settings, monkeypatch)
    try:
        page.search.input.setText("qwen3")
        page.search.search_button.click()
        qtbot.waitUntil(lambda: "internet" in page.search.note.text(), timeout=15_000)
        assert "ConnectError" not in page.search.note.text()
        assert page.search.note.text().count("internet") == 1
    finally:
        page.controller.shutdown()


def visible_in_viewport(page: ModelManagerPage, widget: object) -> bool:
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QWidget

    assert isinstance(widget, QWidget)
    viewport = page.scroll_area.viewport()
    top_left = widget.mapTo(viewport, QPoint(0, 0))
    rect = QRect(top_left, widget.size())
    return widget.isVisible() and viewport.rect().intersects(rect) and rect.bottom() <= viewport.height() + 1


def test_feedback_shows_where_the_user_acted_even_far_down_the_page(qtbot: QtBot, page: ModelManagerPage) -> None:
    """Issue 9 item 4: "Looking up…" and "pick a row first" must be visible next to the button pressed."""
    page.resize(1000, 420)  # a small window: the repo box is far below the fold
    QApplication.processEvents()
    bar = page.scroll_area.verticalScrollBar()
    bar.setValue(bar.maximum())  # the user scrolled down to the "add by id" box
    page.repo_input.setText("localmind-tests/does-not-exist")
    page.repo_find.click()
    assert "Looking up" in page.repo_note.text()
    qtbot.waitUntil(lambda: visible_in_viewport(page, page.repo_note), timeout=3_000)
    qtbot.waitUntil(lambda: "not found" in page.repo_note.text(), timeout=10_000)
    qtbot.waitUntil(lambda: visible_in_viewport(page, page.repo_note), timeout=3_000)

    page.catalog_table.clearSelection()
    bar.setValue(0)  # back at the top, far from the catalog's buttons
    page.catalog_download.click()
    assert page.catalog_note.text() == "Pick a model in the list first."
    qtbot.waitUntil(lambda: visible_in_viewport(page, page.catalog_note), timeout=3_000)
    assert not page.message.isVisible()  # nothing in the page-wide label at the top


def test_offline_download_says_so_once_without_a_class_name_in_the_ui_language(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 9 item 6: no "ConnectError", not repeated, Chinese in the Chinese UI."""
    from localmind.core.hub import DownloadRequest
    from localmind.ui.i18n import Translations

    allow_hub_access(monkeypatch)
    settings = HubSettings(endpoint="http://127.0.0.1:9", connect_timeout_s=1, max_attempts=1)
    page = make_page(qtbot, settings, monkeypatch)
    translations = Translations.for_app(QApplication.instance())  # type: ignore[arg-type]
    try:
        for language, expected in (("en", "Cannot reach Hugging Face"), ("zh_CN", "无法连接 Hugging Face")):
            translations.apply(language)
            with qtbot.waitSignal(page.controller.download_failed, timeout=15_000):
                page.start_download(DownloadRequest("someone/model", model_id=f"offline-{language.lower()}"))
            row = page.rows[f"offline-{language.lower()}"]
            text = row.detail.text()
            assert expected in text and text.count(expected) == 1, text
            assert "ConnectError" not in text and "Error" not in text
            assert not page.message_text()  # said on the row only, not again elsewhere
    finally:
        translations.apply("en")
        page.controller.shutdown()
