"""ModelRef: a model folder or a remote server's model, read from the text stored before the type existed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from localmind.engine.model_ref import ModelRef
from localmind.engine.remote import parse_remote_model_dir, remote_model_dir, remote_model_ref


def test_stored_strings_read_as_before() -> None:
    folder = ModelRef.parse("/home/ann/models/qwen3-0.6b")
    assert folder == ModelRef.local("/home/ann/models/qwen3-0.6b") and not folder.is_remote
    remote = ModelRef.parse("remote:http://192.168.1.5:8080/v1#llama3.2:3b")
    assert remote == ModelRef.remote("http://192.168.1.5:8080/v1", "llama3.2:3b") and remote.is_remote
    # A URL with its own "#": the model's name is after the last one, as parse_remote_model_dir always read it.
    assert ModelRef.parse("remote:http://h/v1#frag#name") == ModelRef.remote("http://h/v1#frag", "name")
    # Not a well-formed remote reference: a folder of that name (as before).
    assert ModelRef.parse("remote:no-hash").folder == "remote:no-hash"
    assert ModelRef.parse("remote:#name").folder == "remote:#name"


@pytest.mark.parametrize("text", ["/models/a b/c", "C:\\models\\phi", "remote:http://h:1/v1#m", "relative/dir"])
def test_the_key_is_the_stored_text(text: str) -> None:
    assert ModelRef.parse(text).key == text
    assert str(ModelRef.parse(text)) == text


def test_the_remote_helpers_speak_model_refs() -> None:
    ref = remote_model_ref("http://h:8080/", "tiny")
    assert ref.url == "http://h:8080/v1" and ref.name == "tiny"
    assert remote_model_dir("http://h:8080/", "tiny") == ref.key == "remote:http://h:8080/v1#tiny"
    assert parse_remote_model_dir(ref.key) == ("http://h:8080/v1", "tiny")
    assert parse_remote_model_dir("/models/tiny") is None


def test_names_and_presence(tmp_path: Path) -> None:
    assert ModelRef.local(tmp_path / "qwen").display_name == "qwen"
    assert ModelRef.remote("http://h/v1", "qwen3:8b").display_name == "qwen3:8b"
    assert not ModelRef.local(tmp_path / "gone").is_there()
    assert ModelRef.local(tmp_path).is_there()
    assert ModelRef.remote("http://h/v1", "m").is_there()  # the load asks the server


def test_a_reference_is_one_thing_or_the_other() -> None:
    for bad in ({}, {"folder": "/m", "url": "http://h/v1", "name": "m"}, {"url": "http://h/v1"}, {"name": "m"}):
        with pytest.raises(ValueError):
            ModelRef(**bad)


def test_the_status_bar_names_a_loading_remote_model_by_its_name(qtbot: Any) -> None:
    from localmind.ui.status_bar import StatusBar

    bar = StatusBar()
    qtbot.addWidget(bar)
    bar.set_loading("remote:http://192.168.1.5:8080/v1#qwen3:8b")
    assert bar.model_label.text() == "Loading qwen3:8b…"  # not "v1#qwen3:8b", a folder's last part
    bar.set_loading("/models/phi-4-mini")
    assert bar.model_label.text() == "Loading phi-4-mini…"
