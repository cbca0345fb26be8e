"""Light and dark themes: one palette of colour tokens, applied as a QPalette and a stylesheet.

The palette is application-wide. The stylesheet is not: it is set on the window's
own parts (sidebar, header, composer, status bar, welcome page, dialogs) and kept
off the chat view, because a stylesheet above a widget makes Qt style every widget
below it through the slower stylesheet engine, and the chat view has many.

"system" follows the OS colour scheme (Qt 6.5+ ``QStyleHints.colorScheme``) and
re-applies itself when the OS switches. Fusion is used everywhere so both themes
look the same on every platform; native styles ignore half of a dark palette.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from localmind.ui import fit

THEMES = ("system", "light", "dark")


@dataclass(frozen=True)
class ThemeColors:
    name: str
    window: str
    sidebar: str
    surface: str
    raised: str
    text: str
    muted: str
    border: str
    hover: str
    selected: str
    accent: str
    accent_hover: str
    on_accent: str
    danger: str
    warning_bg: str
    warning_border: str
    warning_text: str
    error_bg: str
    error_border: str
    code_bg: str

    @property
    def is_dark(self) -> bool:
        return self.name == "dark"


LIGHT = ThemeColors(
    name="light",
    window="#ffffff",
    sidebar="#f5f5f7",
    surface="#ffffff",
    raised="#f3f3f6",
    text="#1d1d22",
    muted="#6b6b78",
    border="#e2e2e8",
    hover="#eaeaef",
    selected="#e2e2ea",
    accent="#4f46e5",
    accent_hover="#4338ca",
    on_accent="#ffffff",
    danger="#d92d20",
    warning_bg="#fff8eb",
    warning_border="#f6d9a8",
    warning_text="#8a4b0f",
    error_bg="#fef3f2",
    error_border="#f7c6c2",
    code_bg="#f4f4f6",
)

DARK = ThemeColors(
    name="dark",
    window="#1f2023",
    sidebar="#17181b",
    surface="#26272c",
    raised="#2b2c31",
    text="#ececf1",
    muted="#a0a1ad",
    border="#36373d",
    hover="#2a2b31",
    selected="#33343b",
    accent="#6d68f2",
    accent_hover="#8480f6",
    on_accent="#ffffff",
    danger="#f97066",
    warning_bg="#35291a",
    warning_border="#5e4421",
    warning_text="#f5c27a",
    error_bg="#3a1f1f",
    error_border="#6a2b2b",
    code_bg="#2a2b30",
)

_current: ThemeColors = LIGHT
_manager: ThemeManager | None = None


def current() -> ThemeColors:
    """The colours in use now (widgets that paint themselves read these)."""
    return _current


def resolve(theme: str) -> ThemeColors:
    """``system`` becomes light or dark from the OS colour scheme; unknown values fall back to it."""
    if theme == "dark":
        return DARK
    if theme == "light":
        return LIGHT
    hints = QGuiApplication.styleHints()
    return DARK if hints.colorScheme() == Qt.ColorScheme.Dark else LIGHT


def palette_for(colors: ThemeColors) -> QPalette:
    pal = QPalette()
    roles = {
        QPalette.ColorRole.Window: colors.window,
        QPalette.ColorRole.WindowText: colors.text,
        QPalette.ColorRole.Base: colors.surface,
        QPalette.ColorRole.AlternateBase: colors.raised,
        QPalette.ColorRole.Text: colors.text,
        QPalette.ColorRole.Button: colors.raised,
        QPalette.ColorRole.ButtonText: colors.text,
        QPalette.ColorRole.ToolTipBase: colors.surface,
        QPalette.ColorRole.ToolTipText: colors.text,
        QPalette.ColorRole.PlaceholderText: colors.muted,
        QPalette.ColorRole.Highlight: colors.accent,
        QPalette.ColorRole.HighlightedText: colors.on_accent,
        QPalette.ColorRole.Link: colors.accent_hover if colors.is_dark else colors.accent,
        QPalette.ColorRole.LinkVisited: colors.accent,
        QPalette.ColorRole.Mid: colors.border,
        QPalette.ColorRole.Midlight: colors.hover,
        QPalette.ColorRole.Dark: colors.border,
        QPalette.ColorRole.Light: colors.surface,
        QPalette.ColorRole.Shadow: "#000000",
    }
    for role, value in roles.items():
        pal.setColor(role, QColor(value))
    disabled = QColor(colors.muted)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return pal


def stylesheet(c: ThemeColors) -> str:
    return f"""
QToolTip {{ color: {c.text}; background: {c.surface}; border: 1px solid {c.border}; padding: 4px 6px; border-radius: 6px; }}
QMainWindow, QDialog {{ background: {c.window}; }}
QSplitter::handle {{ background: {c.border}; }}
QScrollBar:vertical {{ background: transparent; width: 10px; margin: 2px; }}
QScrollBar::handle:vertical {{ background: {c.border}; border-radius: 3px; min-height: 32px; }}
QScrollBar::handle:vertical:hover {{ background: {c.muted}; }}
QScrollBar::add-line, QScrollBar::sub-line {{ height: 0; width: 0; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: transparent; }}
QScrollBar:horizontal {{ background: transparent; height: 10px; margin: 2px; }}
QScrollBar::handle:horizontal {{ background: {c.border}; border-radius: 3px; min-width: 32px; }}

#Sidebar {{ background: {c.sidebar}; border-right: 1px solid {c.border}; }}
#Sidebar QLabel#AppTitle {{ font-size: 15px; font-weight: 600; color: {c.text}; }}
#Sidebar QLabel#SectionLabel {{ color: {c.muted}; font-size: 11px; font-weight: 600; padding: 6px 10px 2px 10px; }}
#SearchField {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 8px; padding: 6px 8px; color: {c.text}; }}
#SearchField:focus {{ border-color: {c.accent}; }}
#NewChatButton {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 8px; padding: 7px 10px;
    text-align: left; font-weight: 600; color: {c.text}; }}
#NewChatButton:hover {{ background: {c.hover}; }}
#ConversationList, #SearchResults {{ background: transparent; border: none; outline: none; }}
#ConversationList::item, #SearchResults::item {{ border-radius: 8px; padding: 7px 10px; margin: 1px 0; color: {c.text}; }}
#ConversationList::item:hover, #SearchResults::item:hover {{ background: {c.hover}; }}
#ConversationList::item:selected, #SearchResults::item:selected {{ background: {c.selected}; color: {c.text}; }}
#EmptyHint {{ color: {c.muted}; padding: 12px; }}

#UndoBar {{ background: {c.raised}; border: 1px solid {c.border}; border-radius: 8px; }}
#UndoBar QLabel {{ color: {c.text}; }}

#ChatHeader {{ background: {c.window}; border-bottom: 1px solid {c.border}; }}
#ChatTitle {{ font-size: 14px; font-weight: 600; color: {c.text}; }}
#HeaderButton, #GhostButton {{ background: transparent; border: none; border-radius: 8px; padding: 6px; color: {c.muted}; }}
#HeaderButton:hover, #GhostButton:hover {{ background: {c.hover}; color: {c.text}; }}
#GhostButton {{ padding: 5px 10px; }}
#GhostButton::menu-indicator, #HeaderButton::menu-indicator {{ image: none; width: 0; }}
#GhostButton:disabled {{ color: {c.border}; }}

#ComposerFrame {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 16px; }}
#ComposerFrame[focused="true"] {{ border-color: {c.accent}; }}
#ComposerInput {{ background: transparent; border: none; color: {c.text}; font-size: 14px;
    selection-background-color: {c.accent}; selection-color: {c.on_accent}; }}
#ComposerHint {{ color: {c.muted}; font-size: 11px; }}
#EditBanner {{ color: {c.muted}; font-size: 12px; }}
#SendButton {{ background: {c.accent}; border: none; border-radius: 16px; }}
#SendButton:hover {{ background: {c.accent_hover}; }}
#SendButton:disabled {{ background: {c.border}; }}
#StopButton {{ background: {c.text}; border: none; border-radius: 16px; }}

#Banner {{ border-radius: 10px; padding: 2px; }}
#Banner[kind="error"] {{ background: {c.error_bg}; border: 1px solid {c.error_border}; }}
#Banner[kind="warning"] {{ background: {c.warning_bg}; border: 1px solid {c.warning_border}; }}
#Banner[kind="info"] {{ background: {c.raised}; border: 1px solid {c.border}; }}
#Banner QLabel {{ color: {c.text}; }}
#Banner QLabel#BannerTitle {{ font-weight: 600; }}

#StatusBar {{ background: {c.window}; border-top: 1px solid {c.border}; }}
#StatusBar QLabel {{ color: {c.muted}; font-size: 12px; }}
#StatusBar QLabel#ModelLabel {{ color: {c.text}; font-weight: 600; }}
#StatusBar QLabel#DroppedNotice {{ color: {c.warning_text}; }}
#ContextGauge {{ background: {c.raised}; border: 1px solid {c.border}; border-radius: 4px; max-height: 8px; min-height: 8px; }}
#ContextGauge::chunk {{ background: {c.accent}; border-radius: 3px; }}
#ContextGauge[level="high"]::chunk {{ background: {c.danger}; }}
#BusyBar {{ background: {c.raised}; border: none; border-radius: 2px; max-height: 4px; min-height: 4px; }}
#BusyBar::chunk {{ background: {c.accent}; border-radius: 2px; }}

#WelcomePage {{ background: {c.window}; }}
#WelcomeTitle {{ font-size: 26px; font-weight: 600; color: {c.text}; }}
#WelcomeSubtitle {{ font-size: 14px; color: {c.muted}; }}
#WelcomeCard {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 14px; }}
#WelcomeCard:hover {{ border-color: {c.accent}; }}
#CardTitle {{ font-size: 14px; font-weight: 600; color: {c.text}; }}
#CardText {{ color: {c.muted}; }}
#SuggestionButton {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 12px; padding: 0;
    text-align: left; color: {c.text}; }}
#SuggestionButton:hover {{ background: {c.hover}; }}
#PrivacyNote {{ color: {c.muted}; font-size: 12px; }}

#PrimaryButton {{ background: {c.accent}; color: {c.on_accent}; border: none; border-radius: 8px; padding: 8px 16px; font-weight: 600; }}
#PrimaryButton:hover {{ background: {c.accent_hover}; }}
#SecondaryButton {{ background: {c.surface}; color: {c.text}; border: 1px solid {c.border}; border-radius: 8px; padding: 8px 16px; }}
#SecondaryButton:hover {{ background: {c.hover}; }}

#SettingsDialog QLabel#DialogTitle {{ font-size: 18px; font-weight: 600; color: {c.text}; }}
#SettingsDialog QTabWidget::pane {{ border: 1px solid {c.border}; border-radius: 10px; top: -1px; background: {c.surface}; }}
#SettingsDialog QTabBar::tab {{ padding: 7px 16px; border: none; color: {c.muted}; }}
#SettingsDialog QTabBar::tab:selected {{ color: {c.text}; border-bottom: 2px solid {c.accent}; }}
#SettingsDialog QLineEdit, #SettingsDialog QPlainTextEdit, #SettingsDialog QComboBox {{ background: {c.window}; border: 1px solid {c.border}; border-radius: 6px; padding: 4px 6px; color: {c.text}; }}
#SettingsDialog QPlainTextEdit:focus, #SettingsDialog QComboBox:focus {{ border-color: {c.accent}; }}
#SettingsDialog QLabel#HelpText {{ color: {c.muted}; font-size: 12px; }}
#SettingsDialog QLabel#NoticeText {{ color: {c.warning_text}; }}
#SettingsDialog QGroupBox {{ font-weight: 600; border: none; margin-top: 14px; padding-top: 8px; }}
#SettingsDialog QGroupBox::title {{ subcontrol-origin: margin; left: 0; color: {c.text}; }}
#PresetButton {{ background: {c.window}; border: 1px solid {c.border}; border-radius: 8px; padding: 6px 12px; color: {c.text}; }}
#PresetButton:checked {{ border-color: {c.accent}; color: {c.accent if not c.is_dark else c.accent_hover}; font-weight: 600; }}
#PresetButton:hover {{ background: {c.hover}; }}

#ModelManager, #ModelManagerContent {{ background: {c.window}; }}
#ModelManager QLabel#PageTitle {{ font-size: 22px; font-weight: 600; color: {c.text}; }}
#ModelManager QLabel#PageSubtitle, #ModelManager QLabel#DownloadDetail {{ color: {c.muted}; }}
#ModelManager QGroupBox {{ font-weight: 600; background: {c.surface}; border: 1px solid {c.border}; border-radius: 10px;
    margin-top: 24px; padding: 6px 4px 2px 4px; }}
#ModelManager QGroupBox::title {{ subcontrol-origin: margin; subcontrol-position: top left; left: 2px; top: 4px;
    color: {c.text}; }}
#ModelManager QTableWidget {{ background: {c.surface}; alternate-background-color: {c.raised}; border: 1px solid {c.border};
    border-radius: 6px; color: {c.text}; selection-background-color: {c.selected}; selection-color: {c.text}; }}
#ModelManager QHeaderView::section {{ background: {c.raised}; color: {c.muted}; border: none;
    border-bottom: 1px solid {c.border}; padding: 5px 8px; font-weight: 600; }}
#ModelManager QTableWidget::item {{ padding: 0px 6px; }}
#ModelManager QPushButton {{ background: {c.surface}; color: {c.text}; border: 1px solid {c.border}; border-radius: 6px;
    padding: 5px 12px; }}
#ModelManager QPushButton:hover {{ background: {c.hover}; }}
#ModelManager QPushButton:disabled {{ color: {c.muted}; border-color: {c.hover}; }}
#ModelManager QPushButton#PrimaryButton {{ background: {c.accent}; color: {c.on_accent}; border: none; font-weight: 600; }}
#ModelManager QPushButton#PrimaryButton:hover {{ background: {c.accent_hover}; }}
#ModelManager QLineEdit, #ModelManager QComboBox {{ background: {c.window}; border: 1px solid {c.border}; border-radius: 6px;
    padding: 4px 6px; color: {c.text}; }}
#ModelManager QProgressBar {{ background: {c.raised}; border: 1px solid {c.border}; border-radius: 4px;
    min-height: 8px; max-height: 8px; }}
#ModelManager QProgressBar::chunk {{ background: {c.accent}; border-radius: 3px; }}
"""


def style(widget: QWidget) -> None:
    """Give ``widget`` (and what it contains) the current theme's stylesheet."""
    widget.setStyleSheet(stylesheet(_current))


def _base_font() -> QFont:
    font = QFont()
    # The first family present wins; fontconfig then adds a CJK and an emoji fallback per glyph.
    font.setFamilies(
        ["Inter", "Segoe UI", "SF Pro Text", "Helvetica Neue", "Noto Sans", "DejaVu Sans", "Noto Sans CJK SC"]
    )
    font.setPointSizeF(10.5)
    return font


class ThemeManager(QObject):
    """Keeps the application's look in step with the user's theme setting and, for "system", with the OS."""

    def __init__(self, app: QApplication, theme: str = "system") -> None:
        super().__init__(app)
        self._app = app
        self._theme = theme if theme in THEMES else "system"
        self._applying = False
        app.setStyle("Fusion")
        app.setFont(_base_font())
        fit.install(app)  # part of every window's look: each dialog fits the screen it opens on
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_os_scheme_changed)

    @classmethod
    def for_app(cls, app: QApplication, theme: str = "system") -> ThemeManager:
        """The application's one manager (a second window, or a test, reuses it rather than stacking up)."""
        global _manager
        if _manager is None or _manager._app is not app:
            _manager = cls(app, theme)
        else:
            _manager._theme = theme if theme in THEMES else "system"
        return _manager

    @property
    def theme(self) -> str:
        return self._theme

    def apply(self, theme: str | None = None) -> ThemeColors:
        global _current
        if theme is not None:
            self._theme = theme if theme in THEMES else "system"
        # Changing the hint emits colorSchemeChanged synchronously; do not re-enter.
        self._applying = True
        try:
            if self._theme != "system":
                # Tell Qt too, so platform dialogs (the file picker) match the app.
                QGuiApplication.styleHints().setColorScheme(
                    Qt.ColorScheme.Dark if self._theme == "dark" else Qt.ColorScheme.Light
                )
            else:
                QGuiApplication.styleHints().unsetColorScheme()
        finally:
            self._applying = False
        colors = resolve(self._theme)
        _current = colors
        self._app.setPalette(palette_for(colors))
        return colors

    def _on_os_scheme_changed(self, _scheme: Qt.ColorScheme) -> None:
        if not self._applying and self._theme == "system" and resolve("system") is not _current:
            self.apply()
