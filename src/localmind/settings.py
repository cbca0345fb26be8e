"""App-wide settings, kept as JSON in ``paths.settings_path()``.

Reading never fails: a value that is missing, of the wrong type or out of range
falls back to its default (with a warning in the log); the shapes below are checked
by LocalMind's shared validator (``localmind.schema.parse_each``, field by field), and a file that is not
JSON at all is copied to ``settings.json.bak`` before defaults are used, so the
user's hand edits are not silently thrown away. Keys this version does not know
(written by a newer LocalMind) are kept and written back unchanged.

Writes go to a temporary file that replaces the old one in one step, so a crash
mid-write leaves either the old settings or the new ones, never half a file.

No Qt here: the terminal commands and the tests use this module too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from localmind import paths
from localmind.engine.types import DEVICES, GenerationOptions
from localmind.errors import UserFacingError
from localmind.schema import Invalid, parse_each, spec

log = logging.getLogger(__name__)

SETTINGS_VERSION = 1

Theme = Literal["system", "light", "dark"]
Language = Literal["system", "en", "zh_CN"]
Device = Literal["auto", "cpu", "cuda", "dml", "coreml"]
THEMES: tuple[str, ...] = get_args(Theme)
LANGUAGES: tuple[str, ...] = get_args(Language)
assert get_args(Device) == DEVICES, "keep Device in step with the engine's DEVICES"

CONTEXT_BUDGET_RANGE = (256, 1_048_576)
THREADS_RANGE = (1, 1024)


@dataclass
class GenerationDefaults:
    """What a new conversation starts with; a conversation's own settings override these."""

    temperature: float = 0.7
    top_p: float = 0.9
    top_k: int = 40
    repetition_penalty: float = 1.1
    max_new_tokens: int = 1024
    system_prompt: str = ""


# A preset names a few sampling values; anything it leaves out comes from the app defaults.
PRESETS: dict[str, dict[str, float | int]] = {
    "precise": {"temperature": 0.2, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.1},
    "balanced": {"temperature": 0.7, "top_p": 0.9, "top_k": 40, "repetition_penalty": 1.1},
    "creative": {"temperature": 1.0, "top_p": 0.95, "top_k": 80, "repetition_penalty": 1.05},
}
GENERATION_KEYS = ("temperature", "top_p", "top_k", "repetition_penalty", "max_new_tokens")


@dataclass
class Settings:
    theme: Theme = "system"
    language: Language = "system"
    device: Device = "auto"
    context_budget: int = spec(4096, ge=CONTEXT_BUDGET_RANGE[0], le=CONTEXT_BUDGET_RANGE[1])
    threads: int | None = spec(None, ge=THREADS_RANGE[0], le=THREADS_RANGE[1])  # None: one per physical core
    last_model: str | None = spec(None, min_length=1)
    # Windows ML may offer a GPU/NPU provider that must be downloaded from Microsoft first: only if the user says so.
    accelerator_downloads: bool = False
    # The local API server (Settings → Server): off by default; its key lives in the keyring, never here.
    api_server: bool = False
    api_server_port: int = spec(8000, ge=1, le=65535)
    api_server_lan: bool = False  # "allow other devices on my network": needs a key
    # Remote models (an OpenAI-compatible server elsewhere): off by default; its key lives in the keyring.
    remote_models: bool = False
    remote_url: str | None = spec(None, pattern="https?://")
    prepare_replies: bool = True  # type-ahead: read the chat into the model while the user types
    # "Use my documents" in the chat header, and the collections it uses ([]: all), as the user left them.
    use_documents: bool = False
    document_collections: list[str] = field(default_factory=list)
    generation: GenerationDefaults = field(default_factory=GenerationDefaults)
    # Keys from a newer LocalMind, written back as they were.
    unknown: dict[str, Any] = field(default_factory=dict, repr=False)


# --- reading ----------------------------------------------------------------------------------------

# The keys written from Settings' own fields; "generation" is a nested object read on its own (below).
_PLAIN = tuple(f.name for f in dataclasses.fields(Settings) if f.name not in ("generation", "unknown"))


def _warn(source: str, prefix: str, raw: Mapping[str, Any], problem: Invalid, default: Any) -> None:
    name = str(problem.loc[0])  # the field itself, also when the problem is an item inside it
    log.warning("%s: %s%s = %r is not valid (%s); using %r", source, prefix, name, raw[name], problem.msg, default)


def _generation_value_ok(name: str, value: Any) -> bool:
    """The type by the shared validator; the range by the engine's own rules, so the two never disagree."""
    values, problems = parse_each(GenerationDefaults, {name: value})
    if problems or name not in values:
        return False
    if name == "system_prompt":
        return True
    try:
        dataclasses.replace(GenerationOptions(), **values).validate()
    except UserFacingError:
        return False
    return True


def _read_generation(raw: Any, source: str) -> GenerationDefaults:
    defaults = GenerationDefaults()
    if raw is None:
        return defaults
    if not isinstance(raw, dict):
        log.warning("%s: 'generation' is not an object; using the default generation settings", source)
        return defaults
    values, problems = parse_each(GenerationDefaults, raw)
    for problem in problems:
        _warn(source, "generation.", raw, problem, getattr(defaults, str(problem.loc[0])))
    for name, value in list(values.items()):
        if not _generation_value_ok(name, value):
            values.pop(name)
            log.warning("%s: generation.%s = %r is not valid; using %r", source, name, value, getattr(defaults, name))
    return dataclasses.replace(defaults, **values)


def settings_from_dict(raw: Mapping[str, Any], source: str = "settings") -> Settings:
    """Build settings from parsed JSON, replacing anything invalid by its default (each field on its own)."""
    settings = Settings()
    values, problems = parse_each(Settings, {name: raw[name] for name in _PLAIN if name in raw})
    for problem in problems:
        _warn(source, "", raw, problem, getattr(settings, str(problem.loc[0])))
    settings = dataclasses.replace(settings, **values)
    settings.generation = _read_generation(raw.get("generation"), source)
    known = {*_PLAIN, "generation", "version"}
    settings.unknown = {key: value for key, value in raw.items() if key not in known}
    return settings


def load_settings(path: Path | None = None) -> Settings:
    """The saved settings, or defaults where there are none; never raises on a bad file."""
    path = path or paths.settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("Cannot read %s (%s); using default settings", path, exc)
        if isinstance(exc, UnicodeDecodeError):
            _keep_backup(path)
        return Settings()
    try:
        raw = json.loads(text)
    except ValueError as exc:
        log.warning("%s is not valid JSON (%s); using default settings", path, exc)
        _keep_backup(path)
        return Settings()
    if not isinstance(raw, dict):
        log.warning("%s does not hold a JSON object; using default settings", path)
        _keep_backup(path)
        return Settings()
    return settings_from_dict(raw, str(path))


def _keep_backup(path: Path) -> None:
    backup = path.with_name(path.name + ".bak")
    try:
        shutil.copy2(path, backup)
        log.warning("Kept the unreadable settings file as %s", backup)
    except OSError as exc:
        log.warning("Could not keep a copy of %s: %s", path, exc)


# --- writing ----------------------------------------------------------------------------------------


def settings_to_dict(settings: Settings) -> dict[str, Any]:
    data: dict[str, Any] = dict(settings.unknown)
    data["version"] = SETTINGS_VERSION
    data.update({name: getattr(settings, name) for name in _PLAIN})
    data["generation"] = dataclasses.asdict(settings.generation)
    return data


def save_settings(settings: Settings, path: Path | None = None) -> None:
    """Write the settings in one atomic step (temporary file, fsync, rename)."""
    path = path or paths.settings_path()
    text = json.dumps(settings_to_dict(settings), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as tmp:
                tmp.write(text)
                tmp.flush()
                os.fsync(tmp.fileno())
            _replace(Path(tmp_name), path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
            raise
    except OSError as exc:
        raise UserFacingError.say(
            "Could not save settings to {path}: {reason}.",
            "Check that the data folder is writable; your changes apply until LocalMind closes.",
            path=path,
            reason=exc.strerror or exc,
        ) from exc


def _replace(source: Path, target: Path) -> None:
    # On Windows a virus scanner or indexer briefly holding the target makes os.replace fail; it lets go quickly.
    for attempt in range(5):
        try:
            os.replace(source, target)
            return
        except PermissionError:
            if attempt == 4:
                raise
            time.sleep(0.05 * (attempt + 1))


# --- generation options -----------------------------------------------------------------------------


def generation_options(
    defaults: GenerationDefaults, conversation_settings: Mapping[str, Any] | None = None, *, seed: int | None = None
) -> GenerationOptions:
    """The options for one turn: app defaults, then the conversation's preset, then its own values.

    Invalid or unknown values in the conversation's settings are skipped (with a warning), so an
    old or hand-edited conversation still generates.
    """
    values: dict[str, Any] = {name: getattr(defaults, name) for name in GENERATION_KEYS}
    overrides = dict(conversation_settings or {})
    preset = overrides.pop("preset", None)
    if preset is not None:
        if preset in PRESETS:
            values.update(PRESETS[preset])
        else:
            log.warning("Unknown preset %r; using the app defaults", preset)
    for name, value in overrides.items():
        if name not in GENERATION_KEYS:
            continue
        if _generation_value_ok(name, value):
            values[name] = value
        else:
            log.warning("Conversation setting %s = %r is not valid; using %r", name, value, values[name])
    for name in GENERATION_KEYS:
        # The app defaults could themselves be bad if a caller built them by hand.
        if not _generation_value_ok(name, values[name]):
            values[name] = getattr(GenerationDefaults(), name)
    options = GenerationOptions(**values, seed=seed)
    options.validate()
    return options


def preset_values(name: str, defaults: GenerationDefaults | None = None) -> dict[str, Any]:
    """All generation values a preset means (preset over ``defaults``), e.g. to fill a settings form."""
    values: dict[str, Any] = {n: getattr(defaults or GenerationDefaults(), n) for n in GENERATION_KEYS}
    values.update(PRESETS[name])
    return values
