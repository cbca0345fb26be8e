"""A build that carries a starter model (resources/starter-model) chats at first launch with no download."""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from localmind.core.starter import starter_model_dir
from localmind.resources import ENV_RESOURCES_DIR, resources_dir
from localmind.selftest import run_self_test
from tests.helpers.app_window import Launch, launch_fixture, send_and_wait, stored, tiny_reply

pytestmark = pytest.mark.gui


@pytest.fixture
def bundled_starter(tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The app's resources as a bundle has them, with the tiny model embedded as the starter."""
    resources = tmp_path / "resources"
    shutil.copytree(resources_dir(), resources, ignore=shutil.ignore_patterns("*.ts"))
    shutil.copytree(tiny_model, resources / "starter-model")
    monkeypatch.setenv(ENV_RESOURCES_DIR, str(resources))
    return resources / "starter-model"


@pytest.fixture
def launch(qtbot: QtBot, tiny_model: Path) -> Iterator[Launch]:
    yield from launch_fixture(qtbot, tiny_model)


def test_no_starter_in_a_plain_build() -> None:
    assert starter_model_dir() is None  # the source tree carries none: builds add it


def test_first_launch_loads_the_starter_and_replies(
    qtbot: QtBot, bundled_starter: Path, tiny_model: Path, launch: Launch
) -> None:
    assert starter_model_dir() == bundled_starter
    mind = launch(None, load_last_model=True)  # a fresh data folder: no model was ever loaded
    assert mind.session.model is not None and mind.session.model.model_dir == str(bundled_starter.resolve())
    send_and_wait(qtbot, mind, "Hi")
    assert stored(mind)[-1][1] == tiny_reply(tiny_model, [("user", "Hi")])


def test_the_self_test_of_such_a_build_runs_the_starter(
    bundled_starter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(model=None, data_dir=None, command=None, self_test=True)
    run_self_test(args)
    out = capsys.readouterr().out
    model_line = next(line for line in out.splitlines() if line.strip().startswith(("PASS  model", "FAIL  model")))
    assert model_line.strip().startswith("PASS") and "the bundled starter model" in model_line
