"""Windows ML: register the accelerators of the Windows ML execution-provider catalog with onnxruntime-genai.

The Windows release is built with ``onnxruntime-genai-winml``, whose GPU and NPU
execution providers are not built in: Windows ML's catalog (the ``windowsml``
package's ``EpCatalog``) lists the providers that fit this PC, makes them ready
(which may download one from Microsoft) and gives the path of each provider's
library, which og must be told about (``og.register_execution_provider_library``)
before a model can use it.

LocalMind registers the providers that are already on the PC at engine start. A
provider that would have to be downloaded first is NOT fetched unless the user
allowed it (``LOCALMIND_ACCELERATOR_DOWNLOADS=1``, which the app sets from its
setting): LocalMind opens no connection the user did not ask for. Elsewhere
(Linux, macOS, or Windows without the package) all of this does nothing.

The catalog and og are injected, so the logic is tested on any OS with a stand-in
catalog (tests/unit/test_winml.py); nothing here has run on real Windows ML
hardware from this project's machines (see the README).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)

ENV_ALLOW_DOWNLOADS = "LOCALMIND_ACCELERATOR_DOWNLOADS"  # "1": a provider the catalog must download may be fetched

READY = "Ready"
NOT_READY = "NotReady"  # on the PC, needs preparing (no download)
NOT_PRESENT = "NotPresent"  # must be downloaded first


class CatalogProvider(Protocol):
    """What LocalMind uses of a ``windowsml`` provider entry."""

    name: str
    library_path: str

    @property
    def ready_state(self) -> Any: ...  # an enum whose ``.name`` is Ready, NotReady or NotPresent

    def ensure_ready(self) -> Any: ...


class Catalog(Protocol):
    def find_all_providers(self) -> Iterable[CatalogProvider]: ...


CatalogFactory = Callable[[], AbstractContextManager[Catalog]]
Register = Callable[[str, str], None]


@dataclass
class Registration:
    """What happened at registration; ``localmind info`` prints it and the release job publishes it."""

    active: bool = False  # False: not Windows, or no Windows ML package: nothing was tried
    reason: str = ""  # why not active, or why the catalog could not be read
    registered: list[str] = field(default_factory=list)
    needs_download: list[str] = field(default_factory=list)  # available, but only after a download the user allows
    failed: dict[str, str] = field(default_factory=dict)  # provider -> one line why

    def as_dict(self) -> dict[str, Any]:
        return {
            "active": self.active,
            "reason": self.reason,
            "registered": list(self.registered),
            "needs_download": list(self.needs_download),
            "failed": dict(self.failed),
        }


def _state_name(provider: CatalogProvider) -> str:
    state = provider.ready_state
    return str(getattr(state, "name", state))


def register_providers(catalog_factory: CatalogFactory, register: Register, *, allow_downloads: bool) -> Registration:
    """Make ready and register every provider of the catalog; a provider to download only if ``allow_downloads``.

    One provider failing (its library refuses to load, preparing it fails) never stops the others.
    """
    result = Registration(active=True)
    try:
        with catalog_factory() as catalog:
            providers = list(catalog.find_all_providers())
            for provider in providers:
                name = provider.name
                try:
                    state = _state_name(provider)
                    if state == NOT_PRESENT and not allow_downloads:
                        result.needs_download.append(name)
                        continue
                    if state != READY:
                        provider.ensure_ready()  # NotReady: prepare it; NotPresent (allowed): download it
                    path = provider.library_path
                    if not path:
                        result.failed[name] = "the catalog gave no library for it"
                        continue
                    register(name, path)
                    result.registered.append(name)
                except Exception as exc:  # one provider's failure is reported, the others still register
                    result.failed[name] = _one_line(exc)
    except Exception as exc:
        result.reason = f"The Windows ML catalog could not be read: {_one_line(exc)}"
    return result


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:240]


_lock = threading.Lock()
_done: Registration | None = None


def ensure_registered(
    og: Any, *, platform: str | None = None, catalog_factory: CatalogFactory | None = None
) -> Registration:
    """Register the catalog's providers with ``og`` once per process (later calls return the first result).

    Does nothing (``active=False``) off Windows, or where og has no ``register_execution_provider_library``,
    or where the ``windowsml`` package is missing.
    """
    global _done
    with _lock:
        if _done is not None:
            return _done
        _done = _register(og, platform or sys.platform, catalog_factory)
        if _done.registered or _done.failed or _done.needs_download:
            log.info("Windows ML providers: %s", _done.as_dict())
        return _done


def _register(og: Any, platform: str, catalog_factory: CatalogFactory | None) -> Registration:
    if platform != "win32":
        return Registration(reason="not Windows")
    register = getattr(og, "register_execution_provider_library", None)
    if register is None:
        return Registration(reason="this onnxruntime-genai cannot register provider libraries")
    if catalog_factory is None:
        try:
            from windowsml import EpCatalog  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            return Registration(reason="the windowsml package is not installed")
        catalog_factory = EpCatalog
    allow = os.environ.get(ENV_ALLOW_DOWNLOADS) == "1"
    return register_providers(catalog_factory, register, allow_downloads=allow)


def reset_for_tests() -> None:
    global _done
    with _lock:
        _done = None


__all__ = [
    "ENV_ALLOW_DOWNLOADS",
    "Catalog",
    "CatalogProvider",
    "Registration",
    "ensure_registered",
    "register_providers",
]
