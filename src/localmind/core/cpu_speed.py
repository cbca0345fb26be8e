"""How fast this CPU generates text, roughly: physical cores × clock, turned into tokens per second for a model.

Why not a matmul probe at first start: measured on the project's shared 2-core machine, a 256×256 float32
matmul loop gave 0.7 to 6 GFLOPS from one run to the next (other processes), which would flip the
recommendation between runs. Cores and clock are stable, and decode speed follows them closely enough to
tell a 2-core laptop from an 8-core desktop — which is all the recommendation needs.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

DEFAULT_GHZ = 2.5  # when the platform will not say
# Decode tokens/s per (core × GHz) for a 1B-parameter model, from the README's measurements on this project's
# 2-core 2.1 GHz machine (4.2 core-GHz): og model-builder int4 Qwen3-0.6B shape 53.9 tok/s -> 7.7;
# an onnx-community q4 export after LocalMind's rewrite (notes: 23.1 tok/s, Qwen3-0.6B) -> 3.3.
TOKENS_PER_CORE_GHZ_PER_B = {"og": 7.7, "community": 3.3}
# Below this a reply feels slow to read along with; the recommendation looks for something at least this fast.
COMFORTABLE_TOKENS_PER_S = 10.0


@dataclass(frozen=True)
class CpuSpeed:
    cores: int
    ghz: float

    @property
    def core_ghz(self) -> float:
        return self.cores * self.ghz


def _linux_ghz() -> float | None:
    for path in ("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",):
        try:
            with open(path, encoding="ascii") as handle:
                return int(handle.read().strip()) / 1e6
        except (OSError, ValueError):
            pass
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    mhz = [float(m) for m in re.findall(r"^cpu MHz\s*:\s*([\d.]+)", text, re.MULTILINE)]
    if mhz:
        return max(mhz) / 1000
    return None


def _mac_ghz() -> float | None:
    try:
        out = subprocess.run(["sysctl", "-n", "hw.cpufrequency_max"], capture_output=True, text=True, timeout=2)
        if out.returncode == 0 and out.stdout.strip():
            return int(out.stdout.strip()) / 1e9
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    return 3.2  # Apple Silicon does not report a clock; its performance cores run at about this


def _windows_ghz() -> float | None:
    try:
        import importlib

        winreg: Any = importlib.import_module("winreg")  # Windows only: typed loosely so mypy passes elsewhere
        key = winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"HARDWARE\DESCRIPTION\System\CentralProcessor\0")
        value, _ = winreg.QueryValueEx(key, "~MHz")
        return int(value) / 1000
    except (OSError, ImportError, ValueError):
        return None


def cpu_speed() -> CpuSpeed:
    from localmind.engine.devices import physical_cores

    if sys.platform.startswith("linux"):
        ghz = _linux_ghz()
    elif sys.platform == "darwin":
        ghz = _mac_ghz()
    elif sys.platform == "win32":
        ghz = _windows_ghz()
    else:
        ghz = None
    return CpuSpeed(cores=physical_cores(), ghz=ghz if ghz and 0.3 < ghz < 8 else DEFAULT_GHZ)


def parse_parameters(text: str) -> float | None:
    """Billions of parameters from a catalog string such as "135M", "0.5B" or "3.8B"."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([MB])\s*", text, re.IGNORECASE)
    if not match:
        return None
    value = float(match.group(1))
    return value / 1000 if match.group(2).upper() == "M" else value


def estimated_tokens_per_s(parameters_b: float, speed: CpuSpeed, form: str = "og") -> float:
    return TOKENS_PER_CORE_GHZ_PER_B.get(form, TOKENS_PER_CORE_GHZ_PER_B["og"]) * speed.core_ghz / parameters_b
