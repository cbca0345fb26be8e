"""Runtime hook: runs in the frozen app before LocalMind's own code."""

import os
import sys

# og reads this when its library loads.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")


def _preload_windows_ml_runtime() -> None:
    """The Windows ML build of og ships onnxruntime.dll inside its own folder and imports only if that
    DLL is already loaded (otherwise it looks for an ``onnxruntime`` Python package, which it does not need)."""
    import ctypes

    folder = os.path.join(getattr(sys, "_MEIPASS", ""), "onnxruntime_genai")
    library = os.path.join(folder, "onnxruntime.dll")
    if os.path.exists(library):
        os.add_dll_directory(folder)
        ctypes.WinDLL(library)


if sys.platform == "win32":
    _preload_windows_ml_runtime()
