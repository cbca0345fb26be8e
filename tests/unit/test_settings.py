"""App settings: defaults, round trip, atomic save, and never crashing on a bad file."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import pytest

from localmind import paths
from localmind.engine.types import GenerationOptions
from localmind.errors import UserFacingError
from localmind.settings import (
    PRESETS,
    GenerationDefaults,
    Settings,
    generation_options,
    load_settings,
    preset_values,
    save_settings,
)


def test_defaults_when_there_is_no_file() -> None:
    s = load_settings()
    assert s == Settings()
    assert (s.theme, s.language, s.device, s.context_budget, s.threads, s.last_model) == (
        "system",
        "system",
        "auto",
        4096,
        None,
        None,
    )
    g = s.generation
    assert (g.temperature, g.top_p, g.top_k, g.repetition_penalty, g.max_new_tokens, g.system_prompt) == (
        0.7,
        0.9,
        40,
        1.1,
        1024,
        "",
    )
    assert not paths.settings_path().exists()  # reading writes nothing


def test_save_and_load_round_trip(data_dir: Path) -> None:
    s = Settings(theme="dark", language="zh_CN", device="cpu", context_budget=8192, threads=4, last_model="/m/phi 3")
    s.generation = GenerationDefaults(temperature=0.3, top_k=0, max_new_tokens=256, system_prompt="你是一个助手。")
    save_settings(s)
    assert paths.settings_path() == data_dir / "settings.json"
    assert load_settings() == s
    raw = json.loads(paths.settings_path().read_text(encoding="utf-8"))
    assert raw["version"] == 1 and raw["generation"]["system_prompt"] == "你是一个助手。"
    assert [p.name for p in data_dir.iterdir()] == ["settings.json"]  # no temporary files left


def test_save_creates_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "settings.json"
    save_settings(Settings(theme="light"), target)
    assert load_settings(target).theme == "light"


def test_invalid_values_fall_back_one_by_one(caplog: pytest.LogCaptureFixture) -> None:
    paths.settings_path().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_path().write_text(
        json.dumps(
            {
                "theme": "purple",
                "language": "zh_CN",
                "device": "tpu",
                "context_budget": True,
                "threads": 0,
                "last_model": 5,
                "generation": {
                    "temperature": 9,
                    "top_p": 0.5,
                    "top_k": 2.5,
                    "max_new_tokens": "many",
                    "system_prompt": None,
                },
            }
        ),
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING):
        s = load_settings()
    assert (s.theme, s.language, s.device, s.context_budget, s.threads, s.last_model) == (
        "system",
        "zh_CN",
        "auto",
        4096,
        None,
        None,
    )
    assert s.generation == GenerationDefaults(top_p=0.5)
    text = caplog.text
    for name in (
        "theme",
        "device",
        "context_budget",
        "threads",
        "last_model",
        "generation.temperature",
        "generation.top_k",
    ):
        assert name in text
    assert not paths.settings_path().with_name("settings.json.bak").exists()  # readable: nothing to rescue


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe garbage", b"", b'"just a string"'])
def test_a_corrupt_file_gives_defaults_and_a_backup(content: bytes, caplog: pytest.LogCaptureFixture) -> None:
    path = paths.settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING):
        assert load_settings() == Settings()
    assert path.with_name("settings.json.bak").read_bytes() == content
    assert "default settings" in caplog.text
    save_settings(Settings(theme="dark"))  # and the app can save over it
    assert load_settings().theme == "dark"


def test_unknown_keys_from_a_newer_version_survive_a_save() -> None:
    path = paths.settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"theme": "light", "future_feature": {"on": True}}), encoding="utf-8")
    s = load_settings()
    s.language = "en"
    save_settings(s)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["future_feature"] == {"on": True} and raw["theme"] == "light" and raw["language"] == "en"


def test_a_failed_save_keeps_the_old_file(monkeypatch: pytest.MonkeyPatch) -> None:
    save_settings(Settings(theme="dark"))

    def fail(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    # A nested context, not monkeypatch.undo(): that would also undo the isolated data folder.
    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", fail)
        with pytest.raises(UserFacingError, match="Could not save settings"):
            save_settings(Settings(theme="light"))
    assert load_settings().theme == "dark"
    assert [p.name for p in paths.settings_path().parent.iterdir()] == ["settings.json"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_unreadable_file_gives_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    save_settings(Settings(theme="dark"))
    monkeypatch.setattr(
        Path, "read_text", lambda self, encoding=None: (_ for _ in ()).throw(PermissionError(13, "denied"))
    )
    assert load_settings() == Settings()


def test_settings_module_does_not_import_qt() -> None:
    import localmind.settings as module

    source = Path(module.__file__).read_text(encoding="utf-8")
    assert "PySide6" not in source and "Qt" not in source.replace("No Qt", "")


# --- generation options -----------------------------------------------------------------------------


def test_options_from_app_defaults() -> None:
    assert generation_options(GenerationDefaults()) == GenerationOptions(
        temperature=0.7, top_p=0.9, top_k=40, repetition_penalty=1.1, max_new_tokens=1024
    )
    assert generation_options(GenerationDefaults(temperature=0.1), {}, seed=3) == GenerationOptions(
        temperature=0.1, seed=3
    )


def test_presets_then_conversation_values() -> None:
    assert set(PRESETS) == {"precise", "balanced", "creative"}
    assert (PRESETS["precise"]["temperature"], PRESETS["precise"]["top_p"]) == (0.2, 0.8)
    assert (PRESETS["balanced"]["temperature"], PRESETS["balanced"]["top_p"]) == (0.7, 0.9)
    assert (PRESETS["creative"]["temperature"], PRESETS["creative"]["top_p"]) == (1.0, 0.95)
    app = GenerationDefaults(max_new_tokens=300)
    o = generation_options(app, {"preset": "creative"})
    assert (o.temperature, o.top_p, o.max_new_tokens) == (1.0, 0.95, 300)
    o = generation_options(app, {"preset": "precise", "temperature": 0.0, "max_new_tokens": 50})
    assert (o.temperature, o.top_p, o.max_new_tokens) == (0.0, 0.8, 50)
    assert preset_values("creative", app)["max_new_tokens"] == 300


def test_invalid_conversation_values_are_skipped(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        o = generation_options(
            GenerationDefaults(),
            {"preset": "wild", "temperature": "hot", "top_p": 0, "top_k": -1, "max_new_tokens": 1.5, "unknown": 1},
        )
    assert o == GenerationOptions()
    assert "wild" in caplog.text and "top_p" in caplog.text
