"""The UI language: Qt translation files, chosen by the user's setting or the OS.

Source strings are English. ``resources/translations/localmind_<lang>.ts`` is the
translators' file (kept in git), and a feature may keep its own ``<feature>_<lang>.ts`` beside it; the ``.qm`` Qt loads is compiled from it with
``pyside6-lrelease`` at build or test time (``python -m localmind.ui.i18n``), and,
in a source checkout, whenever the ``.ts`` is newer — so a fresh clone works.

Installing a translator sends every widget a LanguageChange event; LocalMind's
widgets re-read their strings then, so a switch takes effect at once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator

from localmind.resources import resource_path

LANGUAGES = ("system", "en", "zh_CN")
TRANSLATED = ("zh_CN",)
_instance: Translations | None = None


def translations_dir() -> Path:
    return resource_path("translations")


def resolve_language(setting: str, system_locale: QLocale | None = None) -> str:
    """``en`` or a language we ship; ``system`` picks Chinese for any Chinese OS locale."""
    if setting in TRANSLATED or setting == "en":
        return setting
    locale = system_locale or QLocale.system()
    for name in [locale.name(), *locale.uiLanguages()]:
        if name.replace("-", "_").lower().startswith("zh"):
            return "zh_CN"
    return "en"


def _lrelease() -> list[str] | None:
    try:
        import PySide6
    except ImportError:  # pragma: no cover - PySide6 is a hard dependency
        return None
    exe = "lrelease.exe" if os.name == "nt" else "lrelease"
    bundled = Path(PySide6.__file__).parent / exe
    if bundled.is_file():
        return [str(bundled)]
    found = shutil.which("pyside6-lrelease") or shutil.which("lrelease")
    return [found] if found else None


def compile_translations(directory: Path | None = None, *, force: bool = False) -> list[Path]:
    """Compile every stale ``.ts`` under ``directory`` to ``.qm``; returns the ``.qm`` files written.

    Quietly does nothing where the tool is missing or the folder is read-only (an installed
    bundle ships compiled files).
    """
    directory = directory or translations_dir()
    tool = _lrelease()
    written: list[Path] = []
    if tool is None or not directory.is_dir() or not os.access(directory, os.W_OK):
        return written
    for ts in sorted(directory.glob("*.ts")):
        qm = ts.with_suffix(".qm")
        if not force and qm.exists() and qm.stat().st_mtime >= ts.stat().st_mtime:
            continue
        result = subprocess.run(
            [*tool, "-silent", str(ts), "-qm", str(qm)], capture_output=True, text=True, check=False
        )
        if result.returncode == 0 and qm.exists():
            written.append(qm)
        else:
            print(f"localmind: could not compile {ts.name}: {result.stderr.strip()}", file=sys.stderr)
    return written


def translation_files(language: str, directory: Path | None = None) -> list[str]:
    """The compiled files for ``language``: ``localmind_<lang>`` first, then any feature's ``<feature>_<lang>``."""
    directory = directory or translations_dir()
    names = [f"localmind_{language}"]
    names += sorted(
        qm.stem
        for qm in directory.glob(f"*_{language}.qm")
        if qm.stem not in names and qm.stem.endswith(f"_{language}")
    )
    return names


def current_language() -> str:
    """The UI language in use ("en" or one we ship), for content that is not a Qt string (catalog texts)."""
    return _instance.language if _instance is not None else "en"


class Translations(QObject):
    """Owns the installed translators; ``apply(setting)`` switches the UI language at once."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self._app = app
        self._installed: list[QTranslator] = []
        self.language = "en"

    @classmethod
    def for_app(cls, app: QCoreApplication) -> Translations:
        """The application's one set of translators (shared by every window the process builds)."""
        global _instance
        if _instance is None or _instance._app is not app:
            _instance = cls(app)
        return _instance

    def apply(self, setting: str) -> str:
        """Switch to ``setting`` (system|en|zh_CN); returns the language now in use."""
        language = resolve_language(setting)
        loaded: list[QTranslator] = []
        if language != "en":
            compile_translations()
            # localmind_<lang>.ts holds the core strings; a feature may keep its own <feature>_<lang>.ts beside it.
            for name in translation_files(language):
                ours = QTranslator(self)
                if ours.load(name, str(translations_dir())):
                    loaded.append(ours)
            qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
            qt = QTranslator(self)
            # Qt's own strings: standard buttons (OK, Cancel), the file dialog, context menus of text fields.
            if qt.load(f"qtbase_{language}", qt_dir):
                loaded.append(qt)
        # Set first: every remove and install below makes widgets re-read their texts, and current_language().
        self.language = language if (language == "en" or loaded) else "en"
        for translator in self._installed:
            self._app.removeTranslator(translator)
        self._installed = loaded
        for translator in loaded:
            self._app.installTranslator(translator)
        return self.language


if __name__ == "__main__":
    done = compile_translations(force="--force" in sys.argv)
    print("\n".join(str(p) for p in done) or "translations are up to date")
