"""Errors reach the window in its language: the real .qm files, loaded as the app loads them, translate the
English source texts an error keeps (``UserFacingError.say``); the English text itself stays as it was."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from localmind.core import chat_files
from localmind.core.catalog import GB, MachineInfo
from localmind.core.chat_files import ImportFileError
from localmind.core.hub import list_installed
from localmind.core.store import FULL, explain
from localmind.engine.process import EngineProcess
from localmind.engine.remote import RemoteEngine
from localmind.engine.types import (
    ChatMessage,
    EngineError,
    GenerationOptions,
    LoadOptions,
    ModelLoadError,
    PromptTooLongError,
)
from localmind.engine.validate import validate_model_folder
from localmind.errors import UserFacingError
from localmind.ui.i18n import Translations
from localmind.ui.model_manager import ModelManagerPage
from localmind.workers.messages import phrase_text, user_text
from tests.helpers.fake_hub import DEVICE_FOLDER, FakeHub
from tests.helpers.hub_env import REPO, fast_settings, running_hub, use_keyring

SHOTS = Path(os.environ.get("LOCALMIND_SCREENSHOTS", Path(__file__).resolve().parents[2] / "build" / "screenshots"))


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[Translations]:
    translations = Translations.for_app(qapp)
    assert translations.apply("zh_CN") == "zh_CN"
    try:
        yield translations
    finally:
        translations.apply("en")


def copy_model(tiny_model: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(tiny_model, folder)
    return folder


def load_error(folder: Path) -> UserFacingError:
    with pytest.raises(ModelLoadError) as caught:
        validate_model_folder(folder)
    return caught.value


def manager_page(qtbot: QtBot, hub: FakeHub) -> ModelManagerPage:
    page = ModelManagerPage(
        settings=fast_settings(hub),
        machine=MachineInfo(total_ram_bytes=16 * GB, free_disk_bytes=200 * GB),
        confirm=lambda title, detail: True,
        ask_token=lambda: None,
        open_folder=lambda folder: None,
    )
    qtbot.addWidget(page)
    return page


def test_a_damaged_genai_config_reads_in_chinese(tiny_model: Path, tmp_path: Path, chinese: Translations) -> None:
    folder = copy_model(tiny_model, tmp_path)
    (folder / "genai_config.json").write_text('{"model": {"type": "llama",', encoding="utf-8")
    error = load_error(folder)
    assert str(error).startswith(f"genai_config.json in {folder} is not valid JSON (line 1")  # English as before
    text = user_text(error)
    assert text.startswith(
        f"{folder} 中的 genai_config.json 不是有效的 JSON（第 1 行，第 28 列：此处应为带双引号的属性名）。"
    )
    assert text.endswith("请重新下载模型，或选择其他文件夹。")
    chinese.apply("en")
    assert user_text(error) == str(error)


def test_words_inside_an_error_translate_too_across_the_engine_process(
    tiny_model: Path, tmp_path: Path, chinese: Translations
) -> None:
    folder = copy_model(tiny_model, tmp_path)
    (folder / "genai_config.json").write_bytes(b'{"model": "\xff\xfe"}')
    engine = EngineProcess()
    try:
        with pytest.raises(ModelLoadError) as caught:
            engine.load(str(folder), LoadOptions(device="cpu"))
    finally:
        engine.close()
    assert str(caught.value).startswith(f"genai_config.json in {folder} is not UTF-8 text (the model's settings): ")
    assert user_text(caught.value).startswith(f"{folder} 中的 genai_config.json（模型设置）不是 UTF-8 文本：")


def test_a_missing_tokenizer_reads_in_chinese(tiny_model: Path, tmp_path: Path, chinese: Translations) -> None:
    folder = copy_model(tiny_model, tmp_path)
    (folder / "tokenizer.json").unlink()
    (folder / "tokenizer.model").unlink(missing_ok=True)
    error = load_error(folder)
    assert str(error) == f"tokenizer.json is missing from {folder}. Download the model again, or pick another folder."
    assert user_text(error) == f"{folder} 中缺少 tokenizer.json。请重新下载模型，或选择其他文件夹。"


def test_a_prompt_too_long_reads_in_chinese_across_the_engine_process(tiny_model: Path, chinese: Translations) -> None:
    engine = EngineProcess()
    try:
        engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=64))
        with pytest.raises(PromptTooLongError) as caught:
            list(engine.generate([ChatMessage("user", "word " * 400)], GenerationOptions(temperature=0)))
    finally:
        engine.close()
    error = caught.value
    assert str(error).startswith("This message is too long for the model's context: it needs ")
    text = user_text(error)
    assert text.startswith("这条消息超出了模型的上下文长度：需要 ")
    assert "而上下文（留出回答的空间后）只能容纳 64 个。" in text
    assert text.endswith("请缩短消息或系统提示词，或在“设置”中调大上下文大小。")


def test_a_broken_translation_falls_back_to_english(chinese: Translations) -> None:
    error = UserFacingError.say(
        "Model folder not found: {folder}.", "Check the path, or pick the folder again.", folder="x"
    )
    assert user_text(error) == "找不到模型文件夹：x。请检查路径，或重新选择文件夹。"
    error.values = {}  # as if a translation named a field the source has no value for: English, not a crash
    assert user_text(error) == str(error) == "Model folder not found: x. Check the path, or pick the folder again."


def test_an_error_without_sources_stays_as_it_is(chinese: Translations) -> None:
    assert user_text(UserFacingError("Something odd.", hint="Try again.")) == "Something odd. Try again."
    assert json.dumps(user_text(ValueError("x"))) == '"x"'


def test_a_failed_download_verification_reads_in_chinese_on_the_model_manager_page(
    qtbot: QtBot, tiny_model: Path, monkeypatch: pytest.MonkeyPatch, chinese: Translations
) -> None:
    use_keyring(monkeypatch)
    with running_hub(tiny_model, monkeypatch) as hub:
        page = manager_page(qtbot, hub)
        page.show()
        try:
            page.repo_input.setText(REPO)
            with qtbot.waitSignal(page.controller.task_succeeded, timeout=10_000):
                page.repo_find.click()
            hub.faults.corrupt[f"{DEVICE_FOLDER}/weights.bin"] = 2  # damaged on both tries: the hash check fails
            with qtbot.waitSignal(page.controller.download_failed, timeout=15_000):
                page.repo_download.click()
            (row,) = page.rows.values()
            shown = row.detail.text()
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.resize(1100, 900)
            qtbot.waitUntil(lambda: page.width() == 1100)
            row.grab().save(str(SHOTS / "error-language-download-zh_CN.png"))
        finally:
            page.controller.shutdown()
    assert f"{DEVICE_FOLDER}/weights.bin 两次下载都已损坏（其 " in shown
    assert "与 Hugging Face 列出的不符）；未安装任何内容。请稍后重试，或换一个网络；" in shown
    assert "arrived damaged" not in shown
    assert list_installed() == []


def test_a_load_warning_reads_in_chinese_across_the_engine_process(
    tiny_model: Path, tmp_path: Path, chinese: Translations
) -> None:
    folder = copy_model(tiny_model, tmp_path)
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    del config["chat_template"]
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    engine = EngineProcess()
    try:
        info = engine.load(str(folder), LoadOptions(device="cpu", context_budget=64))
    finally:
        engine.close()
    (warning,) = info.warnings
    assert warning.startswith("This model has no chat template")  # the terminal's text, unchanged
    assert phrase_text(warning) == "此模型没有对话模板；LocalMind 使用通用模板（ChatML），回答质量可能较差。"


def test_an_unreachable_remote_server_reads_in_chinese(chinese: Translations) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(EngineError) as caught:
        RemoteEngine(f"http://127.0.0.1:{port}").list_models()
    assert str(caught.value).startswith(f"The server at 127.0.0.1:{port} refused the connection")
    assert user_text(caught.value) == (
        f"127.0.0.1:{port} 上的服务器拒绝了连接，或找不到该服务器。请确认服务器正在运行、地址正确，然后重试。"
    )


def test_a_damaged_chat_export_reads_in_chinese(tmp_path: Path, chinese: Translations) -> None:
    export = {"format": "localmind-conversations", "version": 1, "conversations": [{"title": 5, "messages": []}]}
    with pytest.raises(ImportFileError) as caught:
        chat_files.parse_json(json.dumps(export), "chats.json")
    assert str(caught.value).startswith("chats.json cannot be imported: conversations[0].title should be text, not")
    assert user_text(caught.value) == (
        "无法导入 chats.json：conversations[0].title 应为文本，而不是数字。"
        "请使用由 LocalMind 的 JSON 导出生成且未经修改的文件（localmind export --format json）。"
    )


def test_a_full_disk_reads_in_chinese(tmp_path: Path, chinese: Translations) -> None:
    database = tmp_path / "conversations.sqlite3"
    error = explain(sqlite3.OperationalError("database or disk is full"), database)
    assert error.kind == FULL  # the window's startup dialog still words it by its kind
    assert user_text(error) == (
        f"{tmp_path} 所在的磁盘已满，LocalMind 无法保存到 conversations.sqlite3。"
        "之前保存的内容是安全的。请在该磁盘上释放一些空间，然后重试。"
    )


def test_a_download_retry_is_told_in_chinese_on_its_row(
    qtbot: QtBot, tiny_model: Path, monkeypatch: pytest.MonkeyPatch, chinese: Translations
) -> None:
    use_keyring(monkeypatch)
    shown: list[str] = []
    with running_hub(tiny_model, monkeypatch) as hub:
        page = manager_page(qtbot, hub)
        page.show()
        # After the page's own slot: what the row says for each progress report.
        page.controller.progress.connect(
            lambda key, _p: shown.append(page.rows[key].detail.text() if key in page.rows else "")
        )
        try:
            page.repo_input.setText(REPO)
            with qtbot.waitSignal(page.controller.task_succeeded, timeout=10_000):
                page.repo_find.click()
            hub.faults.corrupt[f"{DEVICE_FOLDER}/weights.bin"] = 1  # damaged once: fetched again, then fine
            with qtbot.waitSignal(page.controller.download_succeeded, timeout=30_000):
                page.repo_download.click()
                # The window is busy (this thread blocked) while the file is fetched again, as a loaded machine's
                # can be: newer reports pile up behind the one that tells of the damage, which must still be shown.
                deadline = time.monotonic() + 20
                while len(hub.body_requests(f"{DEVICE_FOLDER}/weights.bin")) < 2 and time.monotonic() < deadline:
                    time.sleep(0.01)
                time.sleep(0.3)
        finally:
            page.controller.shutdown()
    assert any(f"{DEVICE_FOLDER}/weights.bin 下载后已损坏；正在重新下载" in text for text in shown), shown
    assert not any("arrived damaged" in text for text in shown)


def test_a_documents_job_that_fails_reads_in_chinese(qtbot: QtBot, tmp_path: Path, chinese: Translations) -> None:
    from localmind.workers.indexer import IndexerService

    service = IndexerService(tmp_path / "documents.sqlite3")
    missing = tmp_path / "report.pdf"
    try:
        with qtbot.waitSignal(service.failed, timeout=30_000) as failed:
            service.submit("add", [str(missing)])
    finally:
        service.shutdown()
    assert failed.args == [f"找不到：{missing}。请检查路径后重试。"]


def test_a_damaged_installed_model_is_explained_in_chinese(
    qtbot: QtBot, tiny_model: Path, monkeypatch: pytest.MonkeyPatch, chinese: Translations
) -> None:
    from localmind.core.hub import import_folder

    use_keyring(monkeypatch)
    model = import_folder(tiny_model, model_id="tiny")
    (model.folder / "model.onnx").write_bytes(b"broken")
    with running_hub(tiny_model, monkeypatch) as hub:
        page = manager_page(qtbot, hub)
        try:
            page.refresh()
            page.select_installed("tiny")
            status = page.installed_table.item(0, 3).text()
            page.load_selected()
            note = page.message_text()
        finally:
            page.controller.shutdown()
    assert status == "已损坏：model.onnx 的大小不对"
    assert "（model.onnx 的大小不对）" in note and "has the wrong size" not in note


def test_why_a_device_was_not_used_reads_in_chinese(qtbot: QtBot, chinese: Translations) -> None:
    from localmind.engine.types import LoadInfo
    from localmind.errors import Phrase
    from localmind.ui.status_bar import StatusBar

    status = StatusBar()
    qtbot.addWidget(status)
    why = Phrase("failed when answering before: {reason}", reason="CUDA error 700")
    status.set_model(LoadInfo(model_dir="/m/phi", model_name="phi", model_type="phi3", device="cpu",
                              fallback_reasons=(("cuda", why),), context_budget=4096))  # fmt: skip
    assert "之前回答时出错：CUDA error 700" in status.device_label.toolTip()
    assert str(why) == "failed when answering before: CUDA error 700"  # what the terminal prints
