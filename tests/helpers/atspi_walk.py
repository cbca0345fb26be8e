"""Walk the AT-SPI tree of one application, as a screen reader sees it (run by the system's Python, not the venv's).

    /usr/bin/python3 tests/helpers/atspi_walk.py PID

The venv's Python cannot import Debian's pyatspi (python3-pyatspi, GObject introspection), so the tests run this
file with /usr/bin/python3 in the environment of the app's session bus. It prints one JSON object: every showing
node of the application's windows with its role, name, description and states, and the list of focusable controls
that have no name (what a screen reader would read as "button" or "edit text" and nothing else). It imports nothing
from LocalMind.
"""

from __future__ import annotations

import json
import sys

import pyatspi  # type: ignore[import-not-found]

MAX_NODES = 5000
MAX_DEPTH = 40
# Any focusable node is one Tab can land on, and a screen reader then reads its name: a control ("push button"), or
# a focusable container ("panel") that would be read as nothing but its role. Scroll bars are the exception: Qt
# names none, and Orca reads their value and orientation.
UNNAMED_OK = {"scroll bar"}


def find_app(pid: int):  # type: ignore[no-untyped-def]
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        try:
            if app is not None and app.get_process_id() == pid:
                return app
        except Exception:
            continue
    return None


def walk(app) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    nodes: list[dict[str, object]] = []
    stack = [(app, 0, "")]
    while stack and len(nodes) < MAX_NODES:
        node, depth, path = stack.pop()
        try:
            states = node.getState()
            role = node.getRoleName()
            name = node.name or ""
            description = node.description or ""
            count = node.childCount
            ident = node.get_accessible_id() or ""  # Qt: the widget's objectName path (who to fix)
        except Exception:
            continue
        showing = states.contains(pyatspi.STATE_SHOWING)
        if depth > 0 and not showing:
            continue
        here = f"{path}/{role}:{name}"[-300:]
        nodes.append(
            {
                "role": role,
                "name": name,
                "description": description,
                "focusable": states.contains(pyatspi.STATE_FOCUSABLE),
                "focused": states.contains(pyatspi.STATE_FOCUSED),
                "path": here,
                "id": ident,
            }
        )
        if depth < MAX_DEPTH and role not in ("list", "table", "tree", "tree table"):
            for i in reversed(range(min(count, 500))):
                child = node.getChildAtIndex(i)
                if child is not None:
                    stack.append((child, depth + 1, here))
    return nodes


def main() -> int:
    pid = int(sys.argv[1])
    app = find_app(pid)
    if app is None:
        print(json.dumps({"error": f"no application with pid {pid} on the AT-SPI bus"}))
        return 2
    nodes = walk(app)
    unnamed = [n for n in nodes if n["focusable"] and n["role"] not in UNNAMED_OK and not str(n["name"]).strip()]
    print(json.dumps({"app": app.name, "nodes": nodes, "unnamed": unnamed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
