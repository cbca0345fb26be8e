"""Which hardware to run on: try the accelerators this platform can have, then the CPU.

og's ``is_*_available`` flags report build options, not what works (several are
True on the CPU wheel), and ``get_current_gpu_device_id`` crashes the CPU wheel.
So LocalMind never asks: it tries to load the model with each provider in
turn, keeps the first that works, and records why the others did not.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from localmind.errors import Phrase

# LocalMind's device names -> og provider names (None: the default CPU provider).
PROVIDERS: dict[str, str | None] = {"cuda": "cuda", "dml": "dml", "coreml": "CoreML", "cpu": None}
DEVICE_LABELS = {
    "cpu": "CPU",
    "cuda": "NVIDIA GPU (CUDA)",
    "dml": "GPU (DirectML)",
    "coreml": "Apple Neural Engine / GPU (CoreML)",
}


def candidate_devices(requested: str = "auto", system: str | None = None) -> list[str]:
    """The devices to try, best first. A forced device is tried alone (no silent fallback)."""
    if requested != "auto":
        if requested not in PROVIDERS:
            from localmind.engine.types import ModelLoadError

            raise ModelLoadError.say(
                "Unknown device {device}.",
                "Use one of: auto, {devices}.",
                device=repr(requested),
                devices=", ".join(PROVIDERS),
            )
        return [requested]
    system = system or platform.system()
    if system == "Windows":
        return ["dml", "cuda", "cpu"]
    if system == "Darwin":
        # CoreML through og is experimental: only on Apple Silicon, and it falls back cleanly.
        return ["coreml", "cpu"] if platform.machine() == "arm64" else ["cpu"]
    return ["cuda", "cpu"]


@dataclass(frozen=True)
class DeviceAttempt:
    device: str
    ok: bool
    reason: str = ""


ModelFactory = Callable[[str, str | None, dict[str, Any]], Any]


def configure_and_load(model_dir: str, provider: str | None, overlay: dict[str, Any]) -> Any:
    """Load an og model with ``provider`` (None = CPU). The real factory; tests inject others."""
    import json

    import onnxruntime_genai as og

    config = og.Config(model_dir)
    config.clear_providers()
    if provider is not None:
        config.append_provider(provider)
    if overlay:
        config.overlay(json.dumps(overlay))
    return og.Model(config)


def load_with_fallback(
    model_dir: str,
    requested: str,
    overlay: dict[str, Any],
    factory: ModelFactory = configure_and_load,
) -> tuple[Any, str, list[DeviceAttempt]]:
    """Try each candidate device; return (model, device, attempts). Raises the last error if none works."""
    attempts: list[DeviceAttempt] = []
    last_error: BaseException | None = None
    failed_before = remembered_failures(model_dir) if requested == "auto" else {}
    for device in candidate_devices(requested):
        if device in failed_before and device != "cpu":
            attempts.append(
                DeviceAttempt(
                    device, False, Phrase("failed when answering before: {reason}", reason=failed_before[device])
                )
            )
            continue
        missing = _missing_provider_library(device) if requested == "auto" and factory is configure_and_load else None
        if missing:
            # og would only fail to load this library, after reading the config (~50 ms of every start).
            attempts.append(DeviceAttempt(device, False, missing))
            continue
        try:
            model = factory(model_dir, PROVIDERS[device], overlay)
        except Exception as exc:  # og raises RuntimeError; anything else is a failure of this device too
            attempts.append(DeviceAttempt(device, False, _short_reason(exc)))
            last_error = exc
            continue
        attempts.append(DeviceAttempt(device, True))
        return model, device, attempts
    assert last_error is not None
    raise last_error


# The provider libraries og loads from its own folder when a model asks for them.
_PROVIDER_LIBRARIES = {"cuda": {"linux": "libonnxruntime-genai-cuda.so", "win32": "onnxruntime-genai-cuda.dll"}}


def _missing_provider_library(device: str) -> str | None:
    """og's reason for failing ``device`` when its library is not installed beside og, without asking og."""
    name = _PROVIDER_LIBRARIES.get(device, {}).get("win32" if sys.platform == "win32" else sys.platform)
    if name is None:
        return None
    import importlib.util

    spec = importlib.util.find_spec("onnxruntime_genai")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    if not folders or any(os.path.exists(os.path.join(folder, name)) for folder in folders):
        return None
    return Phrase(
        "Cuda interface not available: {library} is not installed (this is not a CUDA build of onnxruntime-genai)",
        library=name,
    )


def _short_reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:240]


def physical_cores() -> int:
    """Physical cores (og's default of one intra-op thread leaves most of a laptop idle)."""
    logical = os.cpu_count() or 1
    try:
        if sys.platform.startswith("linux"):
            cores: set[tuple[str, str]] = set()
            physical = core = ""
            with open("/proc/cpuinfo", encoding="utf-8") as handle:
                for line in handle:
                    key, _, value = line.partition(":")
                    key, value = key.strip(), value.strip()
                    if key == "physical id":
                        physical = value
                    elif key == "core id":
                        core = value
                    elif not key and (physical or core):
                        cores.add((physical, core))
                        physical = core = ""
            if physical or core:
                cores.add((physical, core))
            available = len(os.sched_getaffinity(0))
            return max(1, min(len(cores) or logical, available))
        if sys.platform == "darwin":
            out = subprocess.run(["sysctl", "-n", "hw.physicalcpu"], capture_output=True, text=True, timeout=2)
            return max(1, int(out.stdout.strip()))
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    return max(1, logical // 2 if logical >= 4 else logical)


# -- devices that loaded but failed when used ---------------------------------------------------------------------
# A provider can load a model and still fail on its first forward pass (a driver that cannot run one of the
# graph's operators, too little GPU memory for the first batch). The engine then answers on the CPU and
# remembers it here, per model folder, so "auto" does not try that device again for that model.
FAILURES_FILE = "device_failures.json"


def _failures_path() -> Any:
    from localmind import paths

    return paths.data_dir() / FAILURES_FILE


def remembered_failures(model_dir: str) -> dict[str, str]:
    """{device: why} for devices that failed when answering with this model before."""
    import json

    try:
        data = json.loads(_failures_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    entry = data.get(os.path.realpath(model_dir)) if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in entry.items()} if isinstance(entry, dict) else {}


def remember_failure(model_dir: str, device: str, reason: str) -> None:
    """Record that ``device`` failed when answering with this model (best effort: a read-only folder is fine)."""
    import json

    path = _failures_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data.setdefault(os.path.realpath(model_dir), {})[device] = reason[:240]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


_DEVICE_PROBLEM = (
    "provider",
    "not been built with",
    "interface not available",
    "failed to load library",
    "execution provider",
    "libonnxruntime-genai-cuda",
    "cuda",
    "directml",
    "coreml",
)


def is_device_problem(reason: str) -> bool:
    """Whether og's load error is about the device (its provider missing or broken), not the model files."""
    low = reason.lower()
    return any(word in low for word in _DEVICE_PROBLEM)
