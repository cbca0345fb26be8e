"""The bar above the chat: its title, the model picker (installed and remote models, a folder, more models) and
the settings button. Features may add their own switches to its row (Documents inserts "Use my documents")."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMenu, QSizePolicy, QToolButton, QWidget

from localmind.ui import icons, theme
from localmind.ui.plain import tooltip
from localmind.ui.welcome import WelcomePage


def _resolved(folder: str) -> Path | None:
    if not folder:
        return None
    try:
        return Path(folder).resolve()
    except OSError:
        return None


class ChatHeader(QFrame):
    """Signals: model_chosen(str folder or remote id), open_folder_requested(), manager_requested(),
    settings_requested()."""

    model_chosen = Signal(str)
    open_folder_requested = Signal()
    manager_requested = Signal()
    settings_requested = Signal()

    def __init__(self, manager_available: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ChatHeader")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.title_label = QLabel()
        self.title_label.setObjectName("ChatTitle")
        self.title_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.model_button = QToolButton()
        self.model_button.setObjectName("GhostButton")
        self.model_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.model_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.model_menu = QMenu(self)
        self.model_menu.setToolTipsVisible(True)
        self._model_actions: list[QAction] = []
        # (label, model id, tooltip) of models on a remote server (Settings → Server → Remote models), set by the app.
        self.remote_models: list[tuple[str, str, str]] = []
        self.current_model_dir = ""
        self._models_separator = self.model_menu.addSeparator()
        self._models_separator.setVisible(False)
        self.model_menu.aboutToShow.connect(self.refresh_model_menu)
        self.open_folder_action = self.model_menu.addAction("")
        self.open_folder_action.triggered.connect(self.open_folder_requested)
        self.manager_action = self.model_menu.addAction("")
        self.manager_action.triggered.connect(self.manager_requested)
        self.manager_action.setVisible(manager_available)
        self.model_button.setMenu(self.model_menu)
        self.settings_button = QToolButton()
        self.settings_button.setObjectName("HeaderButton")
        self.settings_button.setIconSize(QSize(20, 20))
        self.settings_button.clicked.connect(self.settings_requested)
        row = QHBoxLayout(self)
        row.setContentsMargins(20, 8, 12, 8)
        row.setSpacing(6)
        row.addWidget(self.title_label, 1)
        row.addWidget(self.model_button)
        row.addWidget(self.settings_button)

    def set_model_state(self, state: str, name: str, model_dir: str) -> None:
        """``state``: WelcomePage.NO_MODEL, LOADING or READY; ``model_dir``: the folder of the model that is ready."""
        self.current_model_dir = model_dir if state == WelcomePage.READY else ""
        self.model_button.setIcon(icons.icon("chip", theme.current().muted))
        if state == WelcomePage.LOADING:
            self.model_button.setText(self.tr("Loading {name}…").format(name=name) + "  ▾")
        elif state == WelcomePage.READY:
            self.model_button.setText(name + "  ▾")
        else:
            self.model_button.setText(self.tr("Choose a model") + "  ▾")
        self.model_button.setAccessibleName(self.tr("Model: {name}").format(name=self.model_button.text()))

    def refresh_model_menu(self) -> None:
        """The installed models that pass the quick check, then "Open a model folder…" and "Get more models…".

        Rebuilt each time the menu opens, so a model installed or removed meanwhile shows right.
        """
        # Imported here: the hub package brings its HTTP client, which a chat alone never needs.
        from localmind.core.hub import list_installed
        from localmind.core.hub.details import model_facts
        from localmind.ui.model_manager.details import facts_text

        for action in self._model_actions:
            self.model_menu.removeAction(action)
            action.deleteLater()
        self._model_actions = []
        try:
            models = [m for m in list_installed() if m.ok and m.kind == "chat"]  # not Documents' embedding model
        except OSError:
            models = []  # an unreadable models folder: the menu still offers the other ways to a model
        current = _resolved(self.current_model_dir)
        for model in models:
            # The model's details (parameters, quantization, context, size, memory when loaded, origin) on hover.
            tip = f"{facts_text(model_facts(model.model_path, model.manifest))}\n{model.model_path}"
            checked = current is not None and _resolved(str(model.model_path)) == current
            self._add_model(model.name, str(model.model_path), tip, checked)
        for label, model_dir, tip in self.remote_models:
            self._add_model(label, model_dir, tip, self.current_model_dir == model_dir)
        self._models_separator.setVisible(bool(models) or bool(self.remote_models))

    def _add_model(self, label: str, model_dir: str, tip: str, checked: bool) -> None:
        action = QAction(label, self.model_menu)
        action.setCheckable(True)
        action.setChecked(checked)
        action.setToolTip(tooltip(tip))
        action.triggered.connect(lambda _checked=False, path=model_dir: self.model_chosen.emit(path))
        self.model_menu.insertAction(self._models_separator, action)
        self._model_actions.append(action)

    def apply_theme(self) -> None:
        c = theme.current()
        self.settings_button.setIcon(icons.icon("sliders", c.muted))
        self.model_button.setIcon(icons.icon("chip", c.muted))

    def retranslate(self) -> None:
        self.settings_button.setToolTip(self.tr("Settings (Ctrl+,)"))
        self.settings_button.setAccessibleName(self.tr("Settings"))
        self.open_folder_action.setText(self.tr("Open a model folder…"))
        self.manager_action.setText(self.tr("Get more models…"))
        self.model_button.setToolTip(self.tr("Choose the model"))


__all__ = ["ChatHeader"]
