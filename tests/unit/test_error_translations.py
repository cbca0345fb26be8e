"""Every error text the window can translate has its Simplified Chinese, with the same ``{fields}``.

The texts are found in the source, as a translator's tool would: the literal first (and second) argument of every
``X.say(...)`` / ``self.tell(...)`` call, every ``translatable("...")`` mark and ``Phrase("...")`` value, and ``QCoreApplication.translate
("engine", "...")``. Their translations live in context ``engine`` of any resources/translations/*_zh_CN.ts.
"""

from __future__ import annotations

import ast
import string
import xml.etree.ElementTree as ET
from pathlib import Path

from localmind.errors import CONTEXT

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "src" / "localmind"
TRANSLATIONS = REPO / "resources" / "translations"


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _constant(node: ast.AST | None, constants: dict[str, str]) -> str | None:
    """The string ``node`` always is (a literal, a module constant, a sum of them), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant(node.left, constants), _constant(node.right, constants)
        return None if left is None or right is None else left + right
    return None


def said(path: Path) -> tuple[dict[str, str], list[str]]:
    """``{source: where}`` for the translatable texts of one file, and the problems found (non-literal texts,
    fields no value is given for)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _constant(node.value, constants)
            if value is not None:
                constants[node.targets[0].id] = value
    found: dict[str, str] = {}
    problems: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        where = f"{path.name}:{node.lineno}"
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if isinstance(node.func, ast.Attribute) and name == "tell" and ast.unparse(node.func.value) != "self":
            continue  # someone else's tell(): ours is only ever self.tell(...)
        if name in ("say", "tell") and node.args:
            texts = [a for a in node.args[:2] if not (isinstance(a, ast.Constant) and a.value is None)]
            resolved = [_constant(a, constants) for a in texts]
            for arg, text in zip(texts, resolved, strict=True):
                if text is not None:
                    found[text] = where
                elif not isinstance(arg, ast.Name):  # a plain name: a text from a table marked translatable()
                    problems.append(f"{where}: {name}() needs literal source texts, got {ast.unparse(arg)[:60]}")
            given = {k.arg for k in node.keywords}
            if None not in given and all(t is not None for t in resolved):
                wanted = set().union(*(fields(t) for t in resolved if t is not None))
                if wanted - given:
                    problems.append(f"{where}: no value for {sorted(wanted - given)}")
        elif name in ("translatable", "Phrase") and node.args:
            text = _constant(node.args[0], constants)
            if text is None and not isinstance(node.args[0], ast.Name):  # a name: passing a marked text on
                problems.append(f"{where}: {name}() needs a literal")
            elif text is not None:
                found[text] = where
        elif name == "translate" and len(node.args) >= 2 and _constant(node.args[0], constants) == CONTEXT:
            text = _constant(node.args[1], constants)
            if text is not None:
                found[text] = where
    return found, problems


def translations(folder: Path = TRANSLATIONS) -> dict[str, str]:
    """Source -> Simplified Chinese of context CONTEXT, from every *_zh_CN.ts (finished translations only)."""
    have: dict[str, str] = {}
    for ts in sorted(folder.glob("*_zh_CN.ts")):
        for context in ET.parse(ts).getroot().iter("context"):
            if context.findtext("name") != CONTEXT:
                continue
            for message in context.iter("message"):
                translation = message.find("translation")
                if translation is None or translation.get("type") in ("unfinished", "obsolete", "vanished"):
                    continue
                if (translation.text or "").strip():
                    have[message.findtext("source") or ""] = translation.text or ""
    return have


def _has_words(source: str) -> bool:
    """Whether the text says something besides its fields ("{what} ({percent}%)" only arranges them)."""
    return any(literal.strip(" ()%.,:;") for literal, _, _, _ in string.Formatter().parse(source))


def check(files: list[Path], have: dict[str, str]) -> list[str]:
    problems: list[str] = []
    for path in files:
        found, bad = said(path)
        problems += bad
        for source, where in sorted(found.items()):
            chinese = have.get(source)
            if chinese is None:
                problems.append(f"{where}: no zh_CN translation of {source!r}")
            elif fields(chinese) != fields(source):
                problems.append(
                    f"{where}: the translation's fields {sorted(fields(chinese))} != {sorted(fields(source))}"
                )
            elif _has_words(source) and not any("\u4e00" <= ch <= "\u9fff" for ch in chinese):
                problems.append(f"{where}: the translation of {source!r} is not Chinese")
    return problems


def test_every_error_text_the_window_translates_has_its_chinese() -> None:
    files = sorted(SOURCES.rglob("*.py"))
    texts = {source for path in files for source in said(path)[0]}
    assert len(texts) > 150  # the scan finds the texts at all
    assert check(files, translations()) == []


def test_the_check_finds_a_missing_text_a_wrong_field_and_a_non_literal(tmp_path: Path) -> None:
    code = tmp_path / "bad.py"
    code.write_text(
        "from localmind.errors import UserFacingError\n"
        "NAME = 'x'\n"
        "UserFacingError.say('Nothing here translates {this}.', this=1)\n"
        "UserFacingError.say('Try again.', 'Missing {value}.')\n"
        "UserFacingError.say(f'{NAME} built at run time.')\n"
        "UserFacingError.say('The engine stopped unexpectedly (exit status {status}).', status=1)\n",
        encoding="utf-8",
    )
    folder = tmp_path / "translations"
    folder.mkdir()
    (folder / "x_zh_CN.ts").write_text(
        '<?xml version="1.0" encoding="utf-8"?><TS version="2.1" language="zh_CN"><context><name>engine</name>'
        "<message><source>Try again.</source><translation>请重试。</translation></message>"
        "<message><source>Missing {value}.</source><translation>缺少 {值}。</translation></message>"
        "<message><source>The engine stopped unexpectedly (exit status {status}).</source>"
        '<translation type="unfinished">引擎意外停止。</translation></message>'
        "</context></TS>",
        encoding="utf-8",
    )
    problems = check([code], translations(folder))
    assert any("Nothing here translates {this}." in p for p in problems)
    assert any("fields ['值']" in p for p in problems)
    assert any("no value for ['value']" in p for p in problems)
    assert any("needs literal source texts" in p for p in problems)
    assert any("exit status" in p for p in problems)  # unfinished translations do not count
    assert len(problems) == 5
