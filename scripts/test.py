"""`make test` for any OS (Windows has no make): set up .venv, then ruff, mypy and the whole suite.

    python scripts/test.py              # what `make test` does
    python scripts/test.py -k store     # extra arguments go to pytest

Uses the Python that runs it to create ``.venv`` (if missing) and installs LocalMind with its test tools
there; on Debian/Ubuntu it also runs ``scripts/system-deps.sh test`` as `make test` does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def run(*args: str | Path, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(str(a) for a in args), flush=True)
    subprocess.run([str(a) for a in args], cwd=ROOT, env=env, check=True)


def main(pytest_args: list[str]) -> int:
    python = venv_python()
    if not python.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    stamp = VENV / ".installed-test"
    pyproject = ROOT / "pyproject.toml"
    if not stamp.exists() or stamp.stat().st_mtime < pyproject.stat().st_mtime:
        run(python, "-m", "pip", "install", "-q", "--upgrade", "pip")
        run(python, "-m", "pip", "install", "-q", "-e", ".[test,bench]")
        stamp.touch()
    if sys.platform.startswith("linux") and shutil.which("bash"):
        run("bash", ROOT / "scripts" / "system-deps.sh", "test")
    run(python, "-m", "ruff", "check", "src", "tests", "bench")
    run(python, "-m", "ruff", "format", "--check", "src", "tests", "bench")
    run(python, "-m", "mypy")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONUTF8="1")
    try:
        run(python, "-m", "pytest", *pytest_args, env=env)
    except subprocess.CalledProcessError as exc:
        return exc.returncode
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except subprocess.CalledProcessError as exc:
        sys.exit(exc.returncode)
