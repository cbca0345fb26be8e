"""The layers stay apart: core/ and engine/ never import Qt; nothing below ui/ imports ui/ or app; no import circles."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "localmind"


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def files(layer: str) -> list[Path]:
    return sorted((SRC / layer).rglob("*.py"))


def test_core_and_engine_do_not_import_qt() -> None:
    offenders = [
        f"{p.relative_to(SRC)} imports {name}"
        for layer in ("core", "engine", "server", "documents")
        for p in files(layer)
        for name in imports(p)
        if name.split(".")[0] in {"PySide6", "shiboken6", "PyQt5", "PyQt6"}
    ]
    assert files("core") or files("engine")
    assert offenders == []


def test_workers_and_viewmodels_use_qtcore_only() -> None:
    offenders = [
        f"{p.relative_to(SRC)} imports {name}"
        for layer in ("workers", "viewmodels")
        for p in files(layer)
        for name in imports(p)
        if name.startswith("PySide6.") and name not in {"PySide6.QtCore"}
    ]
    assert offenders == []


def test_nothing_below_ui_imports_ui_or_app() -> None:
    offenders = [
        f"{p.relative_to(SRC)} imports {name}"
        for layer in ("core", "engine", "documents", "workers", "viewmodels")
        for p in files(layer)
        for name in imports(p)
        if name.startswith(("localmind.ui", "localmind.app"))
    ]
    assert offenders == []


def test_the_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtWidgets import QWidget\nimport PySide6\n")
    assert imports(bad) == {"PySide6.QtWidgets", "PySide6"}


# -- import circles -------------------------------------------------------------------------------------------------
# Every import counts: at module level, inside a function (a "lazy" import) and under TYPE_CHECKING. A lazy import
# only hides a circle from Python's start-up; the two modules still cannot be understood, tested or moved apart.


def module_names(root: Path, package: str = "localmind") -> dict[str, Path]:
    """``localmind.core.store`` -> its file, for every module under ``root`` (a package's name is its __init__)."""
    found: dict[str, Path] = {}
    for path in root.rglob("*.py"):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported_modules(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that ``name`` imports anywhere in its file (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            submodules = {f"{base}.{alias.name}" for alias in node.names} & known.keys()
            targets |= submodules  # ``from pkg import module`` imports the module
            if len(submodules) < len(node.names):
                targets.add(base)  # ``from module import name``, or a name the package itself defines
    found: set[str] = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)
    return found


def _facade(tree: ast.Module) -> ast.FunctionDef | None:
    """A package's ``__getattr__``: the names it serves lazily (``from localmind import TextGenerator``)."""
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "__getattr__"), None)


def _nodes(path: Path) -> list[ast.AST]:
    """The file's nodes, less a package's lazy facade: what ``__getattr__`` imports is the package's public surface
    for code outside it, not a dependency of the package's modules (test_no_module_uses_a_package_facade keeps it
    so)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    facade = _facade(tree) if path.name == "__init__.py" else None
    skipped = {id(n) for n in ast.walk(facade)} if facade is not None else set()
    return [n for n in ast.walk(tree) if id(n) not in skipped]


def import_graph(root: Path, package: str = "localmind") -> dict[str, set[str]]:
    known = module_names(root, package)
    return {name: imported_modules(name, path, known) for name, path in known.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The same imports between the top-level parts (``localmind.core``, ``localmind.ui``, ``localmind.app``)."""

    def top(name: str) -> str:
        return ".".join(name.split(".")[:2])

    tops: dict[str, set[str]] = {}
    for name, targets in graph.items():
        tops.setdefault(top(name), set()).update(top(t) for t in targets if top(t) != top(name))
    return tops


def test_no_import_circle_between_modules() -> None:
    assert circles(import_graph(SRC)) == []


def test_no_import_circle_between_layers() -> None:
    """core ⇄ documents or app ⇄ ui through any pair of their modules is a circle too."""
    graph = import_graph(SRC)
    assert len(graph) > 100
    assert circles(package_graph(graph)) == []


def test_no_module_below_app_imports_app() -> None:
    """Only the command line (which starts the window) is above the composition root."""
    graph = import_graph(SRC)
    above = {"localmind.cli"}
    offenders = sorted(name for name, targets in graph.items() if "localmind.app" in targets and name not in above)
    assert offenders == []


def facade_offenders(root: Path, package: str = "localmind") -> list[str]:
    """Modules that import a name a package serves only through its lazy ``__getattr__``: through the facade they
    would close a circle the graph above does not see."""
    known = module_names(root, package)
    served: dict[str, set[str]] = {}
    for name, path in known.items():
        if path.name == "__init__.py":
            tree = ast.parse(path.read_text(encoding="utf-8"))
            defined = {
                t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
            } | {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            defined |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
            if _facade(tree) is not None:
                served[name] = defined
    offenders = []
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in served:
                for alias in node.names:
                    lazy = alias.name not in served[node.module] and f"{node.module}.{alias.name}" not in known
                    if lazy:
                        offenders.append(f"{name} imports {alias.name} from {node.module}")
    return offenders


def test_no_module_uses_a_package_facade() -> None:
    """``from localmind import TextGenerator`` is for users of the library (docs/library.md); inside the package
    the module itself is imported (``localmind.library``)."""
    assert facade_offenders(SRC) == []


def _plant(root: Path, files: dict[str, str]) -> Path:
    package = root / "localmind"
    for relative, text in files.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_the_circle_check_finds_a_planted_circle(tmp_path: Path) -> None:
    """A lazy import inside a function, a relative import and ``from package import module`` all close circles."""
    package = _plant(
        tmp_path,
        {
            "__init__.py": "",
            "core/__init__.py": "",
            "core/a.py": "def f():\n    from localmind.core.b import g\n    return g\n",
            "core/b.py": "from . import c\n",
            "core/c.py": "from localmind.core import a\n",
            "ui/__init__.py": "",
            "ui/view.py": "from localmind.core.a import f\n",
            "app.py": "from localmind.ui.view import f\n",
            "ui/late.py": "def later():\n    import localmind.app\n",
            "facade.py": "from localmind import Lazy, core\n",
        },
    )
    (package / "__init__.py").write_text(
        "NAME = 1\n\ndef __getattr__(name):\n    from localmind.facade import Lazy\n    return Lazy\n"
    )
    assert facade_offenders(package) == ["localmind.facade imports Lazy from localmind"]
    graph = import_graph(package)
    assert circles(graph) == [["localmind.core.a", "localmind.core.b", "localmind.core.c"]]
    assert circles(package_graph(graph)) == [["localmind.app", "localmind.ui"]]
    assert graph["localmind.ui.late"] == {"localmind.app"}


def raw_threads(path: Path) -> list[str]:
    """``threading.Thread(...)`` and ``QThread(...)`` calls in a file."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("Thread", "QThread"):
                found.append(f"{path.name}:{node.lineno} {name}")
    return found


def test_the_window_runs_background_work_only_in_the_task_runner() -> None:
    """app.py, the controllers, the widgets and the indexer start no thread of their own (workers/tasks.py does).

    Excepted: the engine service's own reader (workers/inference.py) and the API server's event loop
    (workers/api_server.py), which live as long as what they serve.
    """
    window_code = [SRC / "app.py", *files("controllers"), *files("ui"), SRC / "workers" / "indexer.py"]
    offenders = [hit for path in window_code for hit in raw_threads(path)]
    assert len(window_code) > 20
    assert offenders == []


def test_the_thread_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import threading\nthreading.Thread(target=print).start()\nfrom PySide6.QtCore import QThread\nQThread()\n"
    )
    assert sorted(raw_threads(bad)) == ["bad.py:2 Thread", "bad.py:4 QThread"]
