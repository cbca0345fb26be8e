"""Check a model folder before og sees it, and turn og's errors into advice.

Every problem names the file and says what is wrong and what to do; a broken
folder never reaches og (which can abort the process on some inputs).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localmind.engine.types import ModelLoadError
from localmind.errors import Phrase, translatable

CONFIG_NAME = "genai_config.json"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model")
_REDOWNLOAD = "Download the model again, or pick another folder."
_INCOMPLETE = "The download may be incomplete. " + _REDOWNLOAD
# Python's JSON parser's own words (JSONDecodeError.msg), translated where the window shows them.
_JSON_REASONS = (
    translatable("Expecting value"),
    translatable("Expecting property name enclosed in double quotes"),
    translatable("Expecting ':' delimiter"),
    translatable("Expecting ',' delimiter"),
    translatable("Unterminated string starting at"),
    translatable("Extra data"),
    translatable("Invalid control character at"),
)


@dataclass(frozen=True)
class ModelFolder:
    path: Path
    config: dict[str, Any]
    onnx_file: Path
    model_type: str
    context_length: int
    chat_template: str | None  # None: the model has none (a generic one is used)
    chat_template_source: str | None
    # An onnx-community / Optimum export: ``path`` is the folder LocalMind prepared, ``source`` the user's.
    source: Path | None = None
    variant: str | None = None
    variants: tuple[str, ...] = ()

    @property
    def user_path(self) -> Path:
        """The folder the user picked (what settings remember and the window shows)."""
        return self.source or self.path

    @property
    def name(self) -> str:
        if self.source is not None:
            return f"{self.source.name} ({self.variant})" if self.variant else self.source.name
        # Downloaded models live in a device subfolder such as cpu-int4-rtn-block-32: name them by the parent too.
        if re.match(r"^(cpu|cuda|dml|gpu)[-_]", self.path.name, re.IGNORECASE) and self.path.parent.name:
            return f"{self.path.parent.name}/{self.path.name}"
        return self.path.name


def _read_json(path: Path, what: Phrase) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ModelLoadError.say(
            "{file} in {folder} is not UTF-8 text ({what}): {reason}.",
            _REDOWNLOAD,
            file=path.name,
            folder=path.parent,
            what=what,
            reason=exc.reason,
        ) from exc
    except OSError as exc:
        raise ModelLoadError.say("Cannot read {path}: {reason}.", path=path, reason=exc.strerror or exc) from exc
    if not text.strip():
        raise ModelLoadError.say("{file} in {folder} is empty.", _REDOWNLOAD, file=path.name, folder=path.parent)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        reason = exc.msg
        raise ModelLoadError.say(
            "{file} in {folder} is not valid JSON (line {line}, column {column}: {reason}).",
            _REDOWNLOAD,
            file=path.name,
            folder=path.parent,
            line=exc.lineno,
            column=exc.colno,
            reason=Phrase(reason) if reason in _JSON_REASONS else reason,
        ) from exc


def _find_model_subfolders(folder: Path, limit: int = 5) -> list[Path]:
    found: list[Path] = []
    for candidate in sorted(folder.rglob(CONFIG_NAME)):
        if len(candidate.relative_to(folder).parts) <= 4:
            found.append(candidate.parent)
        if len(found) >= limit:
            break
    return found


def _model_folder_itself(path: Path) -> Path:
    """``path`` resolved, once it is a folder with og's settings file (else why not, and where to look instead)."""
    if not path.exists():
        raise ModelLoadError.say(
            "Model folder not found: {folder}.", "Check the path, or pick the folder again.", folder=path
        )
    if not path.is_dir():
        raise ModelLoadError.say(
            "{folder} is a file, not a model folder.",
            "Pick the folder that contains {config}.",
            folder=path,
            config=CONFIG_NAME,
        )
    path = path.resolve()
    if not (path / CONFIG_NAME).is_file():
        subfolders = _find_model_subfolders(path)
        if subfolders:
            names = ", ".join(str(p.relative_to(path)) for p in subfolders)
            raise ModelLoadError.say(
                "{folder} has no {config} itself, but these subfolders do: {names}.",
                "Pick the one for your device (a cpu-int4 folder runs everywhere).",
                folder=path,
                config=CONFIG_NAME,
                names=names,
            )
        raise ModelLoadError.say(
            "{folder} does not hold a model LocalMind can open: {config} is missing.",
            "Choose the folder of a model you downloaded, or get a model on the Models page "
            "(“Get more models…” in the model picker).",
            folder=path,
            config=CONFIG_NAME,
        )
    return path


def _decoder_file(path: Path, model: dict[str, Any]) -> Path:
    """The decoder's ONNX file the settings name, once it (and its weights file, where it has one) is there."""
    decoder = model.get("decoder")
    if not isinstance(decoder, dict) or not isinstance(decoder.get("filename"), str):
        raise ModelLoadError.say(
            "{config} in {folder} does not name the decoder's ONNX file (model.decoder.filename).",
            _REDOWNLOAD,
            config=CONFIG_NAME,
            folder=path,
        )
    onnx_file = path / str(decoder["filename"])
    if not onnx_file.is_file():
        raise ModelLoadError.say(
            "{file} is missing from {folder} ({config} says the model is in it).",
            _INCOMPLETE,
            file=onnx_file.name,
            folder=path,
            config=CONFIG_NAME,
        )
    if onnx_file.stat().st_size < 64:
        raise ModelLoadError.say(
            "{file} in {folder} is empty or truncated ({size} bytes).",
            _INCOMPLETE,
            file=onnx_file.name,
            folder=path,
            size=onnx_file.stat().st_size,
        )
    data_file = onnx_file.with_name(onnx_file.name + ".data")
    if not data_file.exists() and _references_external_data(onnx_file, data_file.name):
        raise ModelLoadError.say(
            "{file} is missing from {folder} ({onnx} keeps its weights in it).",
            _INCOMPLETE,
            file=data_file.name,
            folder=path,
            onnx=onnx_file.name,
        )
    return onnx_file


def validate_model_folder(
    folder: str | Path, *, variant: str | None = None, device: str = "auto", read_tokenizer: bool = True
) -> ModelFolder:
    """Return what LocalMind needs to know about ``folder`` or raise :class:`ModelLoadError`.

    An onnx-community / Optimum export (config.json + onnx/*.onnx, no genai_config.json) is prepared first:
    LocalMind builds a loadable folder in its data folder (the user's folder is never written) with the
    ``variant`` asked for, or the best one for ``device``.

    ``read_tokenizer=False`` skips parsing tokenizer.json (3-10 MB, 0.1-0.4 s): the engine's load does, since og
    reads the file anyway and fails cleanly on a damaged one (then ``check_tokenizer_file`` says what is wrong).
    """
    path = Path(folder).expanduser()
    # A folder with its own genai_config.json is og's layout: importing the formats code would cost start-up time.
    if path.is_dir() and (variant or not (path / CONFIG_NAME).is_file()):
        from localmind.engine.formats import prepare

        if variant and not (path / "config.json").is_file():
            raise ModelLoadError.say(
                "{folder} has no variants to choose from: only ONNX exports with several (onnx/model_q4.onnx, "
                "model_fp16.onnx, ...) do.",
                "Leave out the variant for this model.",
                folder=path,
            )
        if variant or prepare.is_community_folder(path):
            prepared = prepare.prepare_folder(path, variant=variant, device=device)
            inner = validate_model_folder(prepared.path)
            return dataclasses.replace(
                inner, source=prepared.source, variant=prepared.variant.name, variants=prepared.available
            )
    path = _model_folder_itself(path)
    config_path = path / CONFIG_NAME
    config = _read_json(config_path, Phrase("the model's settings"))
    if not isinstance(config, dict) or not isinstance(config.get("model"), dict):
        raise ModelLoadError.say(
            '{config} in {folder} has no "model" section.', _REDOWNLOAD, config=CONFIG_NAME, folder=path
        )
    model = config["model"]
    _decoder_file(path, model)
    if not any((path / name).is_file() for name in TOKENIZER_FILES):
        raise ModelLoadError.say("tokenizer.json is missing from {folder}.", _REDOWNLOAD, folder=path)
    if read_tokenizer:
        check_tokenizer_file(path)
    template, source = _chat_template(path)
    context = model.get("context_length")
    if not isinstance(context, int) or context <= 0:
        raise ModelLoadError.say(
            "{config} in {folder} has no valid model.context_length.", _REDOWNLOAD, config=CONFIG_NAME, folder=path
        )
    from localmind.engine.formats.package import loadable_folder

    loadable = loadable_folder(path)  # the graph with logits for the last position only, where it applies
    return ModelFolder(
        path=loadable,
        config=config,
        onnx_file=loadable / str(model["decoder"]["filename"]),
        model_type=str(model.get("type", "unknown")),
        context_length=context,
        chat_template=template,
        chat_template_source=source,
        source=None if loadable == path else path,
    )


def check_tokenizer_file(path: Path) -> None:
    """Raise ModelLoadError naming what is wrong with ``path``/tokenizer.json, if anything (after og failed on it)."""
    tokenizer_file = path / "tokenizer.json"
    if not tokenizer_file.is_file():
        return
    tokenizer = _read_json(tokenizer_file, Phrase("the tokenizer"))
    if not isinstance(tokenizer, dict) or "model" not in tokenizer:
        raise ModelLoadError.say(
            'tokenizer.json in {folder} is not a tokenizer (no "model" section).', _REDOWNLOAD, folder=path
        )


def _references_external_data(onnx_file: Path, data_name: str) -> bool:
    """True when the ONNX file names ``data_name`` as its external data (a cheap byte search, no protobuf parse)."""
    needle = data_name.encode("utf-8")
    with onnx_file.open("rb") as handle:
        tail = b""
        while chunk := handle.read(1 << 20):
            if needle in tail + chunk:
                return True
            tail = chunk[-len(needle) :]
    return False


def _chat_template(path: Path) -> tuple[str | None, str | None]:
    config_path = path / "tokenizer_config.json"
    if config_path.is_file():
        tokenizer_config = _read_json(config_path, Phrase("the tokenizer settings"))
        template = tokenizer_config.get("chat_template") if isinstance(tokenizer_config, dict) else None
        if isinstance(template, list):  # some models list named templates
            named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
            template = named.get("default") or next(iter(named.values()), None)
        if isinstance(template, str) and template.strip():
            return template, "tokenizer_config.json"
    jinja = path / "chat_template.jinja"
    if jinja.is_file():
        text = jinja.read_text(encoding="utf-8", errors="replace")
        if text.strip():
            return text, "chat_template.jinja"
    return None, None


_OG_ERRORS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"protobuf parsing failed|INVALID_PROTOBUF|Failed to load model", re.I),
        translatable(
            "{onnx} is damaged or incomplete: ONNX Runtime cannot read it. "
            "Download the model again, or pick another folder."
        ),
    ),
    (
        re.compile(r"External data|\.data", re.I),
        translatable(
            "The model's weight file next to {onnx} is missing or damaged. "
            "Download the model again, or pick another folder."
        ),
    ),
    (
        re.compile(r"tokenizer|sentencepiece|bpe|vocab", re.I),
        translatable(
            "The tokenizer files in {folder} could not be loaded. Download the model again, or pick another folder."
        ),
    ),
    (
        re.compile(r"Unknown model type|model type|not supported", re.I),
        translatable("This kind of model is not supported by the installed onnxruntime-genai. Try another model."),
    ),
    (
        re.compile(r"bad allocation|out of memory|Failed to allocate|std::bad_alloc", re.I),
        translatable(
            "Not enough memory to load this model. Close other programs, lower the context size in Settings, "
            "or pick a smaller model."
        ),
    ),
]
_OG_SAID = "(onnxruntime-genai said: {raw})"


def explain_og_error(exc: BaseException, folder: ModelFolder) -> ModelLoadError:
    raw = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    for pattern, advice in _OG_ERRORS:
        if pattern.search(raw):
            return ModelLoadError.say(advice, _OG_SAID, onnx=folder.onnx_file.name, folder=folder.path, raw=raw[:300])
    return ModelLoadError.say(
        "onnxruntime-genai could not load {folder}: {raw}.", _REDOWNLOAD, folder=folder.path, raw=raw[:300].rstrip(".")
    )
