"""The end-to-end tests' switches are honoured only by a source checkout that asks for them."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from localmind import app, app_hooks
from localmind.app_hooks import ENV_AUTOCHAT, ENV_ENABLE, ENV_REPORT, ENV_TOKEN_DELAY
from tests.e2e.test_kill_durability import app_env

REPO = Path(__file__).resolve().parents[2]


def test_the_switches_need_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_ENABLE, raising=False)
    monkeypatch.setenv(ENV_TOKEN_DELAY, "0.5")
    assert not app_hooks.active()
    assert app_hooks.slowed_engine_factory() is None
    assert app._test_hooks() is None
    monkeypatch.setenv(ENV_ENABLE, "1")
    assert app_hooks.running_from_checkout()  # the suite runs from the checkout (an editable install)
    assert app_hooks.active() and app._test_hooks() is app_hooks
    assert app_hooks.slowed_engine_factory() is not None


def test_a_frozen_app_ignores_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_ENABLE, "1")
    monkeypatch.setenv(ENV_TOKEN_DELAY, "0.5")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert not app_hooks.active()
    assert app_hooks.slowed_engine_factory() is None
    assert app._test_hooks() is None


def test_an_installed_package_ignores_them(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A wheel installed into site-packages has no checkout around it."""
    site = tmp_path / "lib" / "python3.11" / "site-packages" / "localmind"
    site.mkdir(parents=True)
    monkeypatch.setenv(ENV_ENABLE, "1")
    monkeypatch.setattr(app_hooks, "_package_dir", lambda: site)
    assert not app_hooks.running_from_checkout()
    assert not app_hooks.active()
    # A folder that merely looks like src/ is not enough without the project beside it.
    fake_src = tmp_path / "other" / "src" / "localmind"
    fake_src.mkdir(parents=True)
    assert not app_hooks.running_from_checkout(fake_src)


def test_the_bundle_spec_leaves_the_module_out() -> None:
    spec = (REPO / "packaging" / "localmind.spec").read_text(encoding="utf-8")
    excludes = spec[spec.index("EXCLUDES = [") : spec.index("]", spec.index("EXCLUDES = ["))]
    assert '"localmind.app_hooks"' in excludes
    assert "if m not in EXCLUDES" in spec  # collect_submodules("localmind") would otherwise pull it back in


@pytest.mark.slow
def test_the_real_app_frozen_writes_no_report(tmp_path: Path) -> None:
    """``localmind`` started as the frozen app starts (sys.frozen set) with every switch set: no report, no chat.

    The same command without sys.frozen writes the report and quits (tests/e2e/test_single_instance.py).
    """
    data, report = tmp_path / "data", tmp_path / "report.json"
    env = app_env(**{ENV_REPORT: str(report), ENV_AUTOCHAT: "send me"})
    assert env[ENV_ENABLE] == "1"
    code = (
        f"import sys; sys.frozen = True; from localmind.cli import main; sys.exit(main(['--data-dir', {str(data)!r}]))"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=REPO)
    try:
        deadline = time.monotonic() + 30
        while not (data / "conversations.sqlite3").exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        time.sleep(2.0)  # the hooks would have written the report at the first turn of the event loop
        assert proc.poll() is None, "the app quit by itself: the report hook ran"
        assert not report.exists()
    finally:
        proc.terminate()
        proc.wait(20)
    if report.exists():
        pytest.fail(f"report written: {json.loads(report.read_text())}")
