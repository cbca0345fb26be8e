"""The engine process's resident memory, measured after a model loads (shown as "memory when loaded")."""

from __future__ import annotations

import ctypes
import sys
from typing import Any


def resident_bytes() -> int:
    """Resident set size of this process now (0 where the platform will not say)."""
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            return 0
        return 0
    if sys.platform == "win32":

        class _Counters(ctypes.Structure):
            _fields_ = [
                ("cb", ctypes.c_ulong),
                ("PageFaultCount", ctypes.c_ulong),
                ("PeakWorkingSetSize", ctypes.c_size_t),
                ("WorkingSetSize", ctypes.c_size_t),
                ("QuotaPeakPagedPoolUsage", ctypes.c_size_t),
                ("QuotaPagedPoolUsage", ctypes.c_size_t),
                ("QuotaPeakNonPagedPoolUsage", ctypes.c_size_t),
                ("QuotaNonPagedPoolUsage", ctypes.c_size_t),
                ("PagefileUsage", ctypes.c_size_t),
                ("PeakPagefileUsage", ctypes.c_size_t),
            ]

        counters = _Counters()
        counters.cb = ctypes.sizeof(_Counters)
        windll: Any = getattr(ctypes, "windll", None)
        try:
            handle = windll.kernel32.GetCurrentProcess()
            if windll.psapi.GetProcessMemoryInfo(handle, ctypes.byref(counters), counters.cb):
                return int(counters.WorkingSetSize)
        except (AttributeError, OSError):
            return 0
        return 0
    try:
        import resource

        # macOS reports the peak in bytes; right after a load the peak is what the model took.
        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    except (ImportError, OSError, ValueError):
        return 0
