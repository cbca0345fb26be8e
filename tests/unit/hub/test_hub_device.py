"""Issue 9 item 15: under "auto" the manager downloads for the device the engine will use, not always the CPU."""

from __future__ import annotations

import pytest

from localmind.core.hub import device as device_module
from localmind.core.hub.device import download_device


def test_a_forced_device_is_used_as_it_is() -> None:
    assert download_device("cpu") == "cpu"
    assert download_device("cuda") == "cuda"
    assert download_device("dml") == "dml"
    assert download_device("coreml") == "cpu"  # no CoreML variants on the Hub: the CPU ones run there


def test_auto_follows_the_device_a_model_loaded_on() -> None:
    assert download_device("auto", loaded="cuda") == "cuda"
    assert download_device("auto", loaded="cpu") == "cpu"  # CUDA was tried and failed: CPU files, not GPU ones


def test_auto_before_any_load_takes_the_first_accelerator_this_build_has(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(device_module, "build_has", lambda d: d in ("cpu", "dml"))
    assert download_device("auto", system="Windows") == "dml"  # the engine tries dml first there, and would use it
    assert download_device("auto", system="Linux") == "cpu"  # no CUDA wheel: the engine ends on the CPU
    monkeypatch.setattr(device_module, "build_has", lambda d: d in ("cpu", "cuda"))
    assert download_device("auto", system="Linux") == "cuda"
    assert download_device("auto", system="Windows") == "cuda"


def test_this_build_is_the_cpu_wheel() -> None:
    assert not device_module.build_has("cuda") and not device_module.build_has("dml")
    assert download_device("auto", system="Linux") == "cpu"
