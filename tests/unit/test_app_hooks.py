"""The end-to-end tests' switches live in tests/, not in the shipped package: ``localmind`` cannot honour them."""

from __future__ import annotations

import importlib.util
import json
import pkgutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

import localmind
from tests.e2e.test_kill_durability import app_env
from tests.helpers import app_hooks
from tests.helpers.app_hooks import ENV_AUTOCHAT, ENV_ENABLE, ENV_REPORT, ENV_TOKEN_DELAY

REPO = Path(__file__).resolve().parents[2]


def shipped_modules() -> set[str]:
    """Every module of the package, as PyInstaller's collect_submodules("localmind") finds them for the bundle."""
    return {m.name for m in pkgutil.walk_packages(localmind.__path__, "localmind.")} | {"localmind"}


def test_the_package_has_no_test_hooks() -> None:
    modules = shipped_modules()
    assert "localmind.app" in modules and "localmind.cli" in modules  # the walk sees the package
    assert [m for m in modules if "hook" in m.rsplit(".", 1)[-1]] == []
    assert importlib.util.find_spec("localmind.app_hooks") is None
    assert not list((REPO / "src").rglob("app_hooks.py"))
    # Nothing in the package reads them: the window's code knows no switch of the tests.
    switches = (ENV_AUTOCHAT, ENV_REPORT, ENV_TOKEN_DELAY, "LOCALMIND_TEST_WIDGETS")
    mentions = [
        str(p.relative_to(REPO))
        for p in (REPO / "src" / "localmind").rglob("*.py")
        if any(name in p.read_text(encoding="utf-8") for name in switches)
    ]
    assert mentions == []


def test_the_bundle_spec_takes_no_test_code() -> None:
    """The bundle's hidden imports are the package's own modules (collect_submodules), and tests/ is excluded."""
    spec = (REPO / "packaging" / "localmind.spec").read_text(encoding="utf-8")
    excludes = spec[spec.index("EXCLUDES = [") : spec.index("]", spec.index("EXCLUDES = ["))]
    assert '"tests"' in excludes
    assert 'collect_submodules("localmind")' in spec and "localmind.app_hooks" not in spec


@pytest.mark.slow
def test_the_wheel_has_no_test_hooks(tmp_path: Path) -> None:
    """The installed package is what the wheel holds: built from this checkout, it has no test code."""
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if built.returncode != 0:
        pytest.skip(f"no wheel could be built here: {built.stderr[-400:]}")
    (wheel,) = tmp_path.glob("localmind-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "localmind/app.py" in names
    assert [n for n in names if "hook" in n.lower() or n.startswith("tests/")] == []


def test_the_switches_are_read_by_the_tests_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_TOKEN_DELAY, raising=False)
    assert app_hooks.slowed_engine_factory() is None
    monkeypatch.setenv(ENV_TOKEN_DELAY, "0.5")
    assert app_hooks.slowed_engine_factory() is not None
    assert app_hooks.app_command({ENV_ENABLE: "1"})[1:] == ["-m", "tests.helpers.hooked_app"]
    assert app_hooks.app_command({})[1:] == ["-m", "localmind"]


@pytest.mark.slow
def test_the_real_app_ignores_every_switch(tmp_path: Path) -> None:
    """``localmind`` itself, started with every switch set: no report, no chat (it does not know them).

    The same switches through the tests' entry point write the report and quit (tests/e2e/test_single_instance.py).
    """
    data, report = tmp_path / "data", tmp_path / "report.json"
    env = app_env(**{ENV_REPORT: str(report), ENV_AUTOCHAT: "send me"})
    assert env[ENV_ENABLE] == "1"
    proc = subprocess.Popen([sys.executable, "-m", "localmind", "--data-dir", str(data)], env=env, cwd=REPO)
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
