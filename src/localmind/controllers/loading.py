"""Which model the window has, and what happens when a load fails (the model that worked stays in use).

Models are :class:`~localmind.engine.model_ref.ModelRef`: a folder or a remote server's model. The inference
service, the settings and the conversations keep them as text (``ModelRef.key``); it is parsed here, at the edge.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject

from localmind.engine.model_ref import ModelRef
from localmind.engine.types import LoadInfo, LoadOptions
from localmind.settings import Settings
from localmind.ui.main_window import MainWindow
from localmind.ui.welcome import WelcomePage
from localmind.viewmodels.chat_session import ChatSession
from localmind.workers.inference import InferenceService
from localmind.workers.messages import phrase_text


class ModelLoading(QObject):
    """The model loading policy: what to load at start, the window's state while loading, and the fallback.

    A new model that fails to load leaves the one that worked before in use (issue 9.3): the engine is asked to load
    it again and the window shows it as ready throughout.
    """

    def __init__(
        self,
        service: InferenceService,
        session: ChatSession,
        window: MainWindow,
        settings: Settings,
        save_settings: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.service, self.session, self.window, self.settings = service, session, window, settings
        self._save_settings = save_settings
        self.model_dir: str | None = None  # loaded or loading; None: neither
        self.loaded_device: str | None = None  # the device the engine actually uses (downloads are for it)
        self._working_model: LoadInfo | None = None  # the model that worked before a load began
        self._restoring = False

    def wire(self) -> None:
        self.service.loading_started.connect(self.on_loading_started)
        self.service.load_progress.connect(self.window.status.set_load_progress)
        self.service.loaded.connect(self.on_loaded)
        self.service.load_failed.connect(self.on_load_failed)
        self.window.model_folder_chosen.connect(self.load)

    def options(self) -> LoadOptions:
        s = self.settings
        return LoadOptions(device=s.device, threads=s.threads, context_budget=s.context_budget)

    def load(self, model: ModelRef | str) -> None:
        """Load ``model``: a reference, or its stored text (a folder's path or ``remote:URL#NAME``, as the picker
        and the settings give it)."""
        ref = model if isinstance(model, ModelRef) else ModelRef.parse(model)
        self.session.stop()
        self.service.load(ref.key, self.options())

    def load_at_start(self, model_dir: str | None, load_last_model: bool) -> None:
        """``model_dir`` (``--model``), else the last model used if it is still there, else the bundled starter."""
        target = model_dir or (self.settings.last_model if load_last_model else None)
        if target is None and load_last_model:
            from localmind.core.starter import starter_model_dir

            starter = starter_model_dir()  # first launch of a build that carries a model: chat at once
            target = str(starter) if starter is not None else None
        if not target:
            return
        if model_dir is None and not ModelRef.parse(target).is_there():
            self.window.show_notice(
                QCoreApplication.translate("LocalMind", "The model you used last is no longer there."),
                QCoreApplication.translate(
                    "LocalMind", "{path} was moved or deleted. Open a model folder to continue."
                ).format(path=target),
                timeout_ms=0,
            )
            return
        self.load(target)

    def reload_if_idle(self) -> None:
        """Load the current model again (new device, threads or context budget), unless a reply is streaming."""
        if self.model_dir and self.session.model is not None and not self.session.generating:
            self.load(self.model_dir)

    def on_model_installed(self, page: Any, model_dir: str) -> None:
        """A download finished while no model is loaded (nor loading): load it, so the next message gets a reply."""
        if self.session.model is None and self.model_dir is None:
            page.note_loading(Path(model_dir).name)
            self.load(model_dir)

    def load_from_manager(self, model_dir: str) -> None:
        self.window.show_chat()
        self.load(model_dir)

    def on_loading_started(self, model_dir: str) -> None:
        if self._restoring:
            return  # going back to the model that worked: the window keeps showing it as ready
        if self.session.model is not None:
            self._working_model = self.session.model
        self.model_dir = model_dir
        self.session.set_model(None)
        self.window.set_model_state(WelcomePage.LOADING, ModelRef.parse(model_dir).display_name)
        self.window.status.set_loading(model_dir)
        if self.window.banner.kind == "error":
            self.window.banner.dismiss()

    def on_loaded(self, info: LoadInfo) -> None:
        restored, self._restoring = self._restoring, False
        self._working_model = None
        self.model_dir = info.model_dir
        self._record_loaded(info)
        self.session.set_model(info)
        self.window.set_model_state(WelcomePage.READY, info.model_name, info.model_dir)
        self.window.status.set_model(info)
        if self.session.conversation is not None:
            self.session.request_context_usage()
        if self.settings.last_model != info.model_dir:
            self.settings.last_model = info.model_dir
            self._save_settings()
        if info.warnings and not restored:
            warnings = "\n".join(phrase_text(w) for w in info.warnings)
            self.window.show_notice(
                QCoreApplication.translate("LocalMind", "The model loaded with warnings."), warnings, timeout_ms=0
            )

    def _record_loaded(self, info: LoadInfo) -> None:
        """Remember the device and the memory measured after the load (the model manager shows both)."""
        from localmind.core.hub.details import record_loaded_memory
        from localmind.core.hub.device import download_device

        self.loaded_device = info.device
        record_loaded_memory(info.model_dir, info.memory_bytes)
        manager = self.window.model_manager
        if manager is not None and hasattr(manager, "set_device"):
            manager.set_device(download_device(self.settings.device, info.device))

    def on_load_failed(self, message: str) -> None:
        working, restoring = self._working_model, self._restoring
        self._working_model, self._restoring = None, False
        if working is not None and not restoring and ModelRef.parse(working.model_dir).is_there():
            self._keep_working_model(working, message)
            return
        self.session.set_model(None)
        self.model_dir = None  # nothing loaded, nothing loading
        self.window.set_model_state(WelcomePage.NO_MODEL)
        self.window.status.set_load_failed()
        actions: list[tuple[str, Callable[[], None]]] = [
            (QCoreApplication.translate("LocalMind", "Open another model folder…"), self.window.choose_model_folder)
        ]
        if self.window.manager_action.isVisible():
            actions.append((QCoreApplication.translate("LocalMind", "Get a model"), self.window.show_model_manager))
        self.window.show_error(
            QCoreApplication.translate("LocalMind", "The model could not be loaded."),
            message
            + "\n"
            + QCoreApplication.translate(
                "LocalMind", "Your chats are still here; you can read and search them meanwhile."
            ),
            actions,
        )

    def _keep_working_model(self, working: LoadInfo, message: str) -> None:
        """The new model failed: go on with the one that worked, and say so.

        The engine holds one model; it checks a folder before letting the old model go, but a model that passes the
        checks and then fails inside onnxruntime-genai has already replaced it. So the working model is loaded again
        (a message sent meanwhile waits for it in the worker's queue) and the window shows it as ready throughout.
        """
        self._restoring = True
        self.model_dir = working.model_dir
        self.session.set_model(working)
        self.window.set_model_state(WelcomePage.READY, working.model_name, working.model_dir)
        self.window.status.set_model(working)
        self.service.load(working.model_dir, self.options())
        self.window.show_error(
            QCoreApplication.translate("LocalMind", "The model could not be loaded."),
            message
            + "\n"
            + QCoreApplication.translate("LocalMind", "You are still chatting with {name}.").format(
                name=working.model_name
            ),
            [(QCoreApplication.translate("LocalMind", "Open another model folder…"), self.window.choose_model_folder)],
        )


__all__ = ["ModelLoading"]
