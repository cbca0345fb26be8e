"""Registering Windows ML's execution providers with og: the logic, with a stand-in catalog (no Windows here)."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from localmind.engine import winml


class EpReadyState(enum.Enum):  # the names windowsml's enum uses
    Ready = 0
    NotReady = 1
    NotPresent = 2


@dataclass
class Provider:
    name: str
    state: EpReadyState
    path_when_ready: str
    prepared: list[str] = field(default_factory=list)
    fail_ensure: bool = False

    @property
    def ready_state(self) -> EpReadyState:
        return self.state

    @property
    def library_path(self) -> str:
        return self.path_when_ready if self.state is EpReadyState.Ready else ""

    def ensure_ready(self) -> None:
        if self.fail_ensure:
            raise OSError("the download was refused")
        self.prepared.append(self.name)
        self.state = EpReadyState.Ready


class Catalog:
    def __init__(self, providers: list[Provider]) -> None:
        self.providers = providers
        self.closed = False

    def find_all_providers(self) -> list[Provider]:
        return self.providers


def factory(catalog: Catalog) -> Any:
    @contextlib.contextmanager
    def open_catalog() -> Iterator[Catalog]:
        try:
            yield catalog
        finally:
            catalog.closed = True

    return open_catalog


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    winml.reset_for_tests()
    yield
    winml.reset_for_tests()


def sample() -> list[Provider]:
    return [
        Provider("DmlExecutionProvider", EpReadyState.Ready, r"C:\ep\dml.dll"),
        Provider("OpenVINOExecutionProvider", EpReadyState.NotReady, r"C:\ep\openvino.dll"),
        Provider("QNNExecutionProvider", EpReadyState.NotPresent, r"C:\ep\qnn.dll"),
    ]


def test_ready_and_prepared_providers_register_but_nothing_is_downloaded_unasked() -> None:
    providers = sample()
    catalog = Catalog(providers)
    calls: list[tuple[str, str]] = []
    result = winml.register_providers(factory(catalog), lambda n, p: calls.append((n, p)), allow_downloads=False)
    assert calls == [("DmlExecutionProvider", r"C:\ep\dml.dll"), ("OpenVINOExecutionProvider", r"C:\ep\openvino.dll")]
    assert result.registered == ["DmlExecutionProvider", "OpenVINOExecutionProvider"]
    assert result.needs_download == ["QNNExecutionProvider"]
    assert providers[2].prepared == []  # ensure_ready would have downloaded it
    assert result.failed == {} and result.active and catalog.closed


def test_with_the_users_permission_a_missing_provider_is_downloaded_and_registered() -> None:
    providers = sample()
    calls: list[str] = []
    result = winml.register_providers(factory(Catalog(providers)), lambda n, _p: calls.append(n), allow_downloads=True)
    assert providers[2].prepared == ["QNNExecutionProvider"]
    assert calls == ["DmlExecutionProvider", "OpenVINOExecutionProvider", "QNNExecutionProvider"]
    assert result.needs_download == []


def test_one_failing_provider_never_stops_the_others() -> None:
    providers = [
        Provider("BrokenExecutionProvider", EpReadyState.NotReady, "", fail_ensure=True),
        Provider("NoLibraryExecutionProvider", EpReadyState.Ready, ""),
        Provider("RefusedExecutionProvider", EpReadyState.Ready, r"C:\ep\refused.dll"),
        Provider("DmlExecutionProvider", EpReadyState.Ready, r"C:\ep\dml.dll"),
    ]

    def register(name: str, path: str) -> None:
        if name.startswith("Refused"):
            raise RuntimeError(f"Failed to register execution provider library '{name}'.\nmore detail")

    result = winml.register_providers(factory(Catalog(providers)), register, allow_downloads=False)
    assert result.registered == ["DmlExecutionProvider"]
    assert result.failed == {
        "BrokenExecutionProvider": "the download was refused",
        "NoLibraryExecutionProvider": "the catalog gave no library for it",
        "RefusedExecutionProvider": "Failed to register execution provider library 'RefusedExecutionProvider'.",
    }


def test_a_catalog_that_cannot_be_read_is_reported() -> None:
    def broken() -> Any:
        raise OSError("Windows App SDK runtime missing")

    result = winml.register_providers(broken, lambda n, p: None, allow_downloads=False)
    assert result.active and result.registered == []
    assert result.reason == "The Windows ML catalog could not be read: Windows App SDK runtime missing"


def test_the_real_og_is_asked_and_its_refusal_is_reported() -> None:
    """The real onnxruntime-genai's registration call, with a library that is not there."""
    import onnxruntime_genai as og

    catalog = Catalog([Provider("LocalMindTestExecutionProvider", EpReadyState.Ready, "/nonexistent/ep-library.so")])
    result = winml.ensure_registered(og, platform="win32", catalog_factory=factory(catalog))
    assert result.registered == []
    assert "LocalMindTestExecutionProvider" in result.failed
    assert "Failed to register execution provider library" in result.failed["LocalMindTestExecutionProvider"]


def test_inert_off_windows_and_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import onnxruntime_genai as og

    opened: list[int] = []

    def counting() -> Any:
        opened.append(1)
        return factory(Catalog(sample()))()

    off = winml.ensure_registered(og, platform="linux", catalog_factory=counting)
    assert not off.active and off.reason == "not Windows" and opened == []
    winml.reset_for_tests()

    class OgWithoutRegistration:
        pass

    assert winml.ensure_registered(OgWithoutRegistration(), platform="win32", catalog_factory=counting).active is False
    winml.reset_for_tests()

    calls: list[str] = []

    class RecordingOg:
        def register_execution_provider_library(self, name: str, path: str) -> None:
            calls.append(name)

    monkeypatch.setenv(winml.ENV_ALLOW_DOWNLOADS, "1")
    first = winml.ensure_registered(RecordingOg(), platform="win32", catalog_factory=counting)
    again = winml.ensure_registered(RecordingOg(), platform="win32", catalog_factory=counting)
    assert first is again and opened == [1]
    assert calls == ["DmlExecutionProvider", "OpenVINOExecutionProvider", "QNNExecutionProvider"]


def test_without_the_windowsml_package_nothing_is_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import onnxruntime_genai as og

    monkeypatch.setitem(sys.modules, "windowsml", None)  # import fails, as where it is not installed
    result = winml.ensure_registered(og, platform="win32")
    assert not result.active and result.reason == "the windowsml package is not installed"
