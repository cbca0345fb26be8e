"""Which device's files to download: the one the engine will actually run the model on.

Under "auto" the engine tries the accelerators first (DirectML, CUDA) and falls back to the CPU. Downloading a
CPU variant while the engine then runs on a GPU (or a GPU variant it cannot run) wastes gigabytes, so the
choice follows the engine: the device a model already loaded on in this session when there is one, else the
first accelerator this build of onnxruntime-genai includes (a GPU wheel is installed), else the CPU.
"""

from __future__ import annotations

import contextlib
import platform
from importlib import metadata

from localmind.engine.devices import candidate_devices

# Which onnxruntime-genai wheel brings which provider (the plain wheel has the CPU only).
_WHEELS = {
    "cuda": ("onnxruntime-genai-cuda",),
    "dml": ("onnxruntime-genai-directml", "onnxruntime-genai-winml"),
}


def build_has(device: str) -> bool:
    if device in ("cpu", "coreml"):
        return True
    for dist in _WHEELS.get(device, ()):
        with contextlib.suppress(metadata.PackageNotFoundError):
            metadata.version(dist)
            return True
    return False


def download_device(setting: str, loaded: str | None = None, system: str | None = None) -> str:
    """The device to pick download variants for ("cpu", "cuda" or "dml"), given the device setting."""
    if setting != "auto":
        return "cpu" if setting == "coreml" else setting
    if loaded:
        return "cpu" if loaded == "coreml" else loaded
    for device in candidate_devices("auto", system or platform.system()):
        if build_has(device):
            return "cpu" if device == "coreml" else device
    return "cpu"
