"""A small regex syntax highlighter for code blocks in answers.

It knows the languages small models write most (Python, shell, JavaScript/TypeScript, the C family,
Rust, Go, Java, SQL, JSON, YAML, TOML, HTML/XML, CSS, diff) well enough to make code readable, at
a fraction of a full lexer library's size. Work is per line: QSyntaxHighlighter only re-highlights
lines that changed (and the following ones while a multi-line comment or string state changes), so
streaming a long code block costs the same per batch at line 10 and at line 1,000.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

_NUMBER = r"\b(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)[a-zA-Z]*\b"
_WORD = r"[A-Za-z_][A-Za-z0-9_]*"

# Block states kept by QSyntaxHighlighter between lines.
_NORMAL, _IN_BLOCK_COMMENT, _IN_TRIPLE_DOUBLE, _IN_TRIPLE_SINGLE = -1, 1, 2, 3


@dataclass(frozen=True)
class LanguageSpec:
    keywords: frozenset[str] = frozenset()
    builtins: frozenset[str] = frozenset()
    line_comments: tuple[str, ...] = ()
    block_comment: tuple[str, str] | None = None
    quotes: str = "\"'"
    triple_quotes: bool = False
    case_insensitive: bool = False
    # (regex, role) tried before the generic tokens: tags, keys, shell variables, diff lines.
    extra: tuple[tuple[str, str], ...] = ()
    pattern: re.Pattern[str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        parts = [f"(?P<x{i}>{regex})" for i, (regex, _role) in enumerate(self.extra)]
        if self.line_comments:
            parts.append("(?P<comment>(?:" + "|".join(re.escape(c) for c in self.line_comments) + r").*)")
        if self.block_comment:
            parts.append(f"(?P<block>{re.escape(self.block_comment[0])})")
        if self.triple_quotes:
            parts.append("(?P<triple>\"\"\"|''')")
        for i, q in enumerate(self.quotes):
            parts.append(f"(?P<s{i}>{re.escape(q)}(?:\\\\.|[^{re.escape(q)}\\\\])*(?:{re.escape(q)}|$))")
        parts.append(f"(?P<number>{_NUMBER})")
        parts.append(f"(?P<word>{_WORD})(?P<call>\\s*\\()?")
        object.__setattr__(self, "pattern", re.compile("|".join(parts)))


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_C_FAMILY_KEYWORDS = _words(
    "if else for while do switch case default break continue return goto struct union enum typedef "
    "static const volatile extern inline sizeof void int char short long float double signed unsigned "
    "bool true false auto register class public private protected virtual override template typename "
    "namespace using new delete this throw try catch final nullptr NULL import package extends implements "
    "interface abstract synchronized instanceof boolean byte var val fun when object data sealed super "
    "null operator constexpr noexcept friend mutable explicit static_cast dynamic_cast reinterpret_cast"
)
_PYTHON = LanguageSpec(
    keywords=_words(
        "False None True and as assert async await break class continue def del elif else except finally "
        "for from global if import in is lambda nonlocal not or pass raise return try while with yield match case"
    ),
    builtins=_words(
        "print len range int str float list dict set tuple bool open isinstance super self cls enumerate zip map "
        "filter sorted reversed min max sum abs any all type object Exception ValueError TypeError KeyError"
    ),
    line_comments=("#",),
    triple_quotes=True,
    extra=((r"@[A-Za-z_][\w.]*", "function"),),
)
_JS = LanguageSpec(
    keywords=_words(
        "break case catch class const continue debugger default delete do else export extends finally for "
        "function if import in instanceof let new return super switch this throw try typeof var void while "
        "with yield async await of static get set true false null undefined interface type enum implements "
        "readonly private public protected as from declare namespace"
    ),
    builtins=_words("console window document Math JSON Promise Array Object String Number Map Set Error"),
    line_comments=("//",),
    block_comment=("/*", "*/"),
    quotes="\"'`",
)
_C = LanguageSpec(
    keywords=_C_FAMILY_KEYWORDS, line_comments=("//",), block_comment=("/*", "*/"), extra=((r"^\s*#\s*\w+", "keyword"),)
)
_RUST = LanguageSpec(
    keywords=_words(
        "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match "
        "mod move mut pub ref return self Self static struct super trait true type unsafe use where while"
    ),
    builtins=_words(
        "Some None Ok Err Vec String Option Result Box println format vec i32 i64 u8 u32 u64 usize f32 f64 str bool"
    ),
    line_comments=("//",),
    block_comment=("/*", "*/"),
    quotes='"',
    extra=((r"\b[a-z_]+!", "function"), (r"'[a-z_]+\b(?!')", "builtin")),
)
_GO = LanguageSpec(
    keywords=_words(
        "break case chan const continue default defer else fallthrough for func go goto if import interface "
        "map package range return select struct switch type var true false nil"
    ),
    builtins=_words("string int int64 float64 bool byte rune error make len cap append new panic fmt"),
    line_comments=("//",),
    block_comment=("/*", "*/"),
    quotes="\"'`",
)
_SHELL = LanguageSpec(
    keywords=_words("if then else elif fi for while until do done case esac in function return export local set unset"),
    builtins=_words(
        "echo cd ls cat grep sed awk sudo apt pip python python3 git curl wget make mkdir rm cp mv chmod source"
    ),
    line_comments=("#",),
    extra=((r"\$\{[^}]*\}|\$[A-Za-z_0-9@#?*!-]+", "builtin"), (r"^\s*[$>]\s", "comment")),
)
_SQL = LanguageSpec(
    keywords=_words(
        "select from where insert into values update set delete create table drop alter add index primary key "
        "foreign references join left right inner outer on group by order having limit offset as and or not "
        "null is in like between distinct union all case when then else end begin commit rollback view if exists "
        "integer text real blob varchar default unique count sum avg min max"
    ),
    line_comments=("--",),
    block_comment=("/*", "*/"),
    case_insensitive=True,
)
_JSON = LanguageSpec(
    keywords=_words("true false null"), quotes='"', extra=((r'"(?:\\.|[^"\\])*"(?=\s*:)', "function"),)
)
_YAML = LanguageSpec(
    keywords=_words("true false null yes no on off"),
    line_comments=("#",),
    extra=((r"^\s*-?\s*[\w.-]+(?=\s*:)", "function"),),
)
_TOML = LanguageSpec(
    keywords=_words("true false"),
    line_comments=("#",),
    extra=((r"^\s*\[[^\]]*\]", "keyword"), (r"^\s*[\w.-]+(?=\s*=)", "function")),
)
_MARKUP = LanguageSpec(
    quotes="\"'",
    block_comment=("<!--", "-->"),
    extra=((r"</?[\w:.-]+|/?>", "tag"), (r"\b[\w:-]+(?==)", "builtin"), (r"&\w+;", "number")),
)
_CSS = LanguageSpec(
    block_comment=("/*", "*/"),
    extra=((r"[.#]?[\w-]+(?=\s*\{)", "tag"), (r"[\w-]+(?=\s*:)", "builtin"), (r"#[0-9a-fA-F]{3,8}\b", "number")),
)
_DIFF = LanguageSpec(quotes="", extra=((r"^\+.*", "added"), (r"^-.*", "removed"), (r"^@@.*", "function")))
_GENERIC = LanguageSpec()

_LANGUAGES: dict[str, LanguageSpec] = {}
for _spec, _names in (
    (_PYTHON, "python py python3 py3 pycon ipython"),
    (_JS, "javascript js jsx mjs cjs typescript ts tsx node"),
    (_C, "c h cpp c++ cc cxx hpp java cs csharp c# kotlin kt swift php objc objective-c scala dart"),
    (_RUST, "rust rs"),
    (_GO, "go golang"),
    (_SHELL, "bash sh shell zsh console terminal powershell ps1 ps bat cmd dockerfile docker makefile make"),
    (_SQL, "sql sqlite postgres postgresql mysql"),
    (_JSON, "json jsonc json5"),
    (_YAML, "yaml yml"),
    (_TOML, "toml ini cfg conf"),
    (_MARKUP, "html xml svg xhtml vue"),
    (_CSS, "css scss less"),
    (_DIFF, "diff patch"),
):
    for _name in _names.split():
        _LANGUAGES[_name] = _spec


def language_spec(language: str) -> LanguageSpec:
    return _LANGUAGES.get(language.lower(), _GENERIC)


class CodeHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument, language: str, colours: dict[str, QColor]) -> None:
        super().__init__(document)
        self._spec = language_spec(language)
        self._formats: dict[str, QTextCharFormat] = {}
        self.set_colours(colours, rehighlight=False)

    def set_colours(self, colours: dict[str, QColor], rehighlight: bool = True) -> None:
        self._formats = {}
        for role, colour in colours.items():
            fmt = QTextCharFormat()
            fmt.setForeground(colour)
            if role == "comment":
                fmt.setFontItalic(True)
            elif role == "keyword":
                fmt.setFontWeight(QFont.Weight.DemiBold)
            self._formats[role] = fmt
        if rehighlight:
            self.rehighlight()

    def _paint(self, start: int, end: int, role: str) -> None:
        fmt = self._formats.get(role)
        if fmt is not None and end > start:
            self.setFormat(start, end - start, fmt)

    def _close_multiline(self, text: str, start: int, state: int) -> int:
        """Colour from ``start`` to the end of an open comment/string; return where normal text resumes (-1: it does not)."""
        spec = self._spec
        closer = {
            _IN_BLOCK_COMMENT: spec.block_comment[1] if spec.block_comment else "",
            _IN_TRIPLE_DOUBLE: '"""',
            _IN_TRIPLE_SINGLE: "'''",
        }[state]
        role = "comment" if state == _IN_BLOCK_COMMENT else "string"
        end = text.find(closer, start) if closer else -1
        if end < 0:
            self._paint(start, len(text), role)
            self.setCurrentBlockState(state)
            return -1
        self._paint(start, end + len(closer), role)
        return end + len(closer)

    def highlightBlock(self, text: str) -> None:
        spec = self._spec
        self.setCurrentBlockState(_NORMAL)
        pos = 0
        previous = self.previousBlockState()
        if previous in (_IN_BLOCK_COMMENT, _IN_TRIPLE_DOUBLE, _IN_TRIPLE_SINGLE):
            pos = self._close_multiline(text, 0, previous)
            if pos < 0:
                return
        pattern = spec.pattern
        while pos < len(text):
            m = pattern.search(text, pos)
            if m is None:
                return
            group = m.lastgroup or ""
            start, end = m.start(), m.end()
            if group == "block":
                pos = self._close_multiline(text, start, _IN_BLOCK_COMMENT)
                if pos < 0:
                    return
                continue
            if group == "triple":
                state = _IN_TRIPLE_DOUBLE if m.group("triple") == '"""' else _IN_TRIPLE_SINGLE
                self._paint(start, end, "string")
                pos = self._close_multiline(text, end, state)
                if pos < 0:
                    return
                continue
            if group == "comment":
                self._paint(start, end, "comment")
            elif group.startswith("s") and group[1:].isdigit():
                self._paint(start, end, "string")
            elif group.startswith("x"):
                self._paint(start, end, spec.extra[int(group[1:])][1])
            elif group == "number":
                self._paint(start, end, "number")
            elif group in ("word", "call"):
                self._paint_word(m)
            pos = max(end, pos + 1)

    def _paint_word(self, m: re.Match[str]) -> None:
        spec = self._spec
        word = m.group("word")
        key = word.lower() if spec.case_insensitive else word
        start, end = m.start("word"), m.end("word")
        if key in spec.keywords:
            self._paint(start, end, "keyword")
        elif key in spec.builtins:
            self._paint(start, end, "builtin")
        elif m.group("call") is not None and spec is not _GENERIC:
            self._paint(start, end, "function")
