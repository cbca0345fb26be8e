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

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from localmind.resources import resource_path
from localmind.ui import fit

THEMES = ("system", "light", "dark")
BASE_POINTS = 10.5  # the smallest base font size; the system's wins where it is larger


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
    accent_text: str  # the accent as text or a line on the window's backgrounds (links, a chosen style, focus)

    @property
    def focus(self) -> str:
        """The keyboard focus ring."""
        return self.accent_text

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
    muted="#5e5e6a",  # 4.5:1 (WCAG AA) on every light background, the selected row's included
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
    accent_text="#4f46e5",
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
    accent="#6460e8",  # white text on it: 4.8:1
    accent_hover="#5b55e0",  # 5.5:1 (a lighter hover could not carry white text at AA)
    on_accent="#ffffff",
    danger="#f97066",
    warning_bg="#35291a",
    warning_border="#5e4421",
    warning_text="#f5c27a",
    error_bg="#3a1f1f",
    error_border="#6a2b2b",
    code_bg="#2a2b30",
    accent_text="#a5a2fa",  # 5.4:1 or more on every dark background
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
        QPalette.ColorRole.Link: colors.accent_text,
        QPalette.ColorRole.LinkVisited: colors.accent,
        QPalette.ColorRole.Mid: colors.border,
        QPalette.ColorRole.Midlight: colors.hover,
        QPalette.ColorRole.Dark: colors.border,
        QPalette.ColorRole.Light: colors.surface,
        QPalette.ColorRole.Shadow: colors.border,  # black drew a raised dark edge on combo boxes in dark
    }
    for role, value in roles.items():
        pal.setColor(role, QColor(value))
    disabled = QColor(colors.muted)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return pal


def stylesheet(c: ThemeColors) -> str:
    """The whole stylesheet for ``c``: one rule per line, grouped by the part of the window it styles. It is a
    declarative table (selectors and values, no logic), so its sections stay long rather than being cut further."""
    pt = _font_points
    return "\n".join(
        (_base_rules(c, pt), _window_rules(c, pt), _page_rules(c, pt), _manager_rules(c, pt), _focus_rules(c))
    )


def _font_points(px_at_default: float) -> str:
    """A font size relative to the application's font (which follows the system's size, see ``_base_font``):
    the size that was ``px_at_default`` pixels with a 14 px (10.5 pt) base font, in points."""
    app = QGuiApplication.instance()
    base = QGuiApplication.font().pointSizeF() if app is not None else BASE_POINTS
    return f"{max(base, 1.0) * px_at_default / 14:.1f}"


def _arrow(c: ThemeColors) -> str:
    """The combo boxes' flat arrow (resources/icons/combo-arrow-<theme>.svg, drawn in the theme's muted colour):
    a styled drop-down loses Fusion's arrow, and Fusion's own button was a raised dark bevel in the dark theme."""
    return resource_path("icons", f"combo-arrow-{c.name}.svg").as_posix()


def _base_rules(c: ThemeColors, pt: Callable[[float], str]) -> str:
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
QComboBox {{ background: {c.window}; color: {c.text}; border: 1px solid {c.border}; border-radius: 6px; padding: 4px 6px; }}
QComboBox::drop-down {{ subcontrol-origin: padding; subcontrol-position: center right; width: 20px; border: none; background: transparent; }}
QComboBox::down-arrow {{ image: url({_arrow(c)}); width: 12px; height: 12px; }}
QComboBox QAbstractItemView {{ background: {c.surface}; color: {c.text}; border: 1px solid {c.border}; selection-background-color: {c.selected}; selection-color: {c.text}; }}
"""


def _window_rules(c: ThemeColors, pt: Callable[[float], str]) -> str:
    return f"""
#Sidebar {{ background: {c.sidebar}; border-right: 1px solid {c.border}; }}
#Sidebar QLabel#AppTitle {{ font-size: {pt(15)}pt; font-weight: 600; color: {c.text}; }}
#Sidebar QLabel#SectionLabel {{ color: {c.muted}; font-size: {pt(11)}pt; font-weight: 600; padding: 6px 10px 2px 10px; }}
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
#ChatTitle {{ font-size: {pt(14)}pt; font-weight: 600; color: {c.text}; }}
#HeaderButton, #GhostButton {{ background: transparent; border: none; border-radius: 8px; padding: 6px; color: {c.muted}; }}
#HeaderButton:hover, #GhostButton:hover {{ background: {c.hover}; color: {c.text}; }}
#GhostButton {{ padding: 5px 10px; }}
#GhostButton::menu-indicator, #HeaderButton::menu-indicator {{ image: none; width: 0; }}
#GhostButton:disabled {{ color: {c.border}; }}

#ComposerFrame {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 16px; }}
#ComposerFrame[focused="true"] {{ border-color: {c.accent}; }}
#ComposerInput {{ background: transparent; border: none; color: {c.text}; font-size: {pt(14)}pt;
    selection-background-color: {c.accent}; selection-color: {c.on_accent}; }}
#ComposerHint {{ color: {c.muted}; font-size: {pt(11)}pt; }}
#EditBanner {{ color: {c.muted}; font-size: {pt(12)}pt; }}
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
#StatusBar QLabel {{ color: {c.muted}; font-size: {pt(12)}pt; }}
#StatusBar QLabel#ModelLabel {{ color: {c.text}; font-weight: 600; }}
#StatusBar QLabel#DroppedNotice {{ color: {c.warning_text}; }}
#ContextGauge {{ background: {c.raised}; border: 1px solid {c.border}; border-radius: 4px; max-height: 8px; min-height: 8px; }}
#ContextGauge::chunk {{ background: {c.accent}; border-radius: 3px; }}
#ContextGauge[level="high"]::chunk {{ background: {c.danger}; }}
#BusyBar {{ background: {c.raised}; border: none; border-radius: 2px; max-height: 4px; min-height: 4px; }}
#BusyBar::chunk {{ background: {c.accent}; border-radius: 2px; }}
"""


def _page_rules(c: ThemeColors, pt: Callable[[float], str]) -> str:
    return f"""
#WelcomePage {{ background: {c.window}; }}
#WelcomeTitle {{ font-size: {pt(26)}pt; font-weight: 600; color: {c.text}; }}
#WelcomeSubtitle {{ font-size: {pt(14)}pt; color: {c.muted}; }}
#WelcomeCard {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 14px; }}
#WelcomeCard:hover {{ border-color: {c.accent}; }}
#CardTitle {{ font-size: {pt(14)}pt; font-weight: 600; color: {c.text}; }}
#CardText {{ color: {c.muted}; }}
#SuggestionButton {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 12px; padding: 0;
    text-align: left; color: {c.text}; }}
#SuggestionButton:hover {{ background: {c.hover}; }}
#PrivacyNote {{ color: {c.muted}; font-size: {pt(12)}pt; }}

#PrimaryButton {{ background: {c.accent}; color: {c.on_accent}; border: none; border-radius: 8px; padding: 8px 16px; font-weight: 600; }}
#PrimaryButton:hover {{ background: {c.accent_hover}; }}
#SecondaryButton {{ background: {c.surface}; color: {c.text}; border: 1px solid {c.border}; border-radius: 8px; padding: 8px 16px; }}
#SecondaryButton:hover {{ background: {c.hover}; }}

#SettingsDialog QLabel#DialogTitle {{ font-size: {pt(18)}pt; font-weight: 600; color: {c.text}; }}
#SettingsDialog QTabWidget::pane {{ border: 1px solid {c.border}; border-radius: 10px; top: -1px; background: {c.surface}; }}
#SettingsDialog QTabBar::tab {{ padding: 7px 16px; border: none; color: {c.muted}; }}
#SettingsDialog QTabBar::tab:selected {{ color: {c.text}; border-bottom: 2px solid {c.accent}; }}
#SettingsDialog QLineEdit, #SettingsDialog QPlainTextEdit, #SettingsDialog QComboBox {{ background: {c.window}; border: 1px solid {c.border}; border-radius: 6px; padding: 4px 6px; color: {c.text}; }}
#SettingsDialog QPlainTextEdit:focus, #SettingsDialog QComboBox:focus {{ border-color: {c.accent}; }}
#SettingsDialog QLabel#HelpText {{ color: {c.muted}; font-size: {pt(12)}pt; }}
#SettingsDialog QLabel#NoticeText {{ color: {c.warning_text}; }}
#SettingsDialog QGroupBox {{ font-weight: 600; border: none; margin-top: 14px; padding-top: 8px; }}
#SettingsDialog QGroupBox::title {{ subcontrol-origin: margin; left: 0; color: {c.text}; }}
#PresetButton {{ background: {c.window}; border: 1px solid {c.border}; border-radius: 8px; padding: 6px 12px; color: {c.text}; }}
#PresetButton:checked {{ border-color: {c.accent_text}; color: {c.accent_text}; font-weight: 600; }}
#PresetButton:hover {{ background: {c.hover}; }}
"""


def _manager_rules(c: ThemeColors, pt: Callable[[float], str]) -> str:
    return f"""
#ModelManager, #ModelManagerContent {{ background: {c.window}; }}
#ModelManager QLabel#PageTitle {{ font-size: {pt(22)}pt; font-weight: 600; color: {c.text}; }}
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


def _focus_rules(c: ThemeColors) -> str:
    """A visible keyboard focus on everything the stylesheet styles (a styled widget loses Fusion's focus frame):
    a 2 px ring in ``focus`` (at least 3:1 against the backgrounds, WCAG 2.2 non-text contrast) — in the text
    colour on the accent-coloured buttons, where the accent would not show — reserved as a transparent border where
    a widget has none so that focusing moves nothing."""
    ring = c.focus
    return f"""
#SecondaryButton:focus, #PresetButton:focus, #NewChatButton:focus, #SuggestionButton:focus,
#ModelManager QPushButton:focus {{ border: 2px solid {ring}; }}
#PrimaryButton:focus, #ModelManager QPushButton#PrimaryButton:focus {{ border: 2px solid {c.text}; }}
#HeaderButton, #GhostButton, #DisclosureButton {{ border: 2px solid transparent; }}
#HeaderButton:focus, #GhostButton:focus, #DisclosureButton:focus {{ border: 2px solid {ring}; }}
#SendButton:focus {{ border: 2px solid {c.text}; }}
#StopButton:focus {{ border: 2px solid {ring}; }}
QComboBox:focus, QLineEdit:focus, QPlainTextEdit:focus, #SearchField:focus {{ border: 2px solid {ring}; }}
QCheckBox:focus, QRadioButton:focus {{ color: {c.text}; border: 2px solid {ring}; border-radius: 4px; }}
QCheckBox, QRadioButton {{ border: 2px solid transparent; padding: 1px 2px; }}
QTabBar::tab:focus, #SettingsDialog QTabBar::tab:selected:focus {{ color: {c.text}; border: 2px solid {ring};
    border-radius: 4px; }}
#ConversationList:focus, #SearchResults:focus, #ModelManager QTableWidget:focus {{ border: 2px solid {ring}; border-radius: 8px; }}
#DisclosureButton {{ background: transparent; color: {c.text}; padding: 4px 6px; font-weight: 600; }}
#DisclosureButton:hover {{ background: {c.hover}; border-radius: 6px; }}
"""


def style(widget: QWidget) -> None:
    """Give ``widget`` (and what it contains) the current theme's stylesheet."""
    widget.setStyleSheet(stylesheet(_current))


def _base_font(system: QFont | None = None) -> QFont:
    """Our families at the system's font size: a user who made the system's text larger gets larger text here
    (never below BASE_POINTS, the size the layout was drawn for; Qt's bare default on X11 is a small 9 pt)."""
    system = system if system is not None else QGuiApplication.font()
    font = QFont(system)
    # The first family present wins; fontconfig then adds a CJK and an emoji fallback per glyph.
    font.setFamilies(
        ["Inter", "Segoe UI", "SF Pro Text", "Helvetica Neue", "Noto Sans", "DejaVu Sans", "Noto Sans CJK SC"]
    )
    size = system.pointSizeF()
    font.setPointSizeF(max(size, BASE_POINTS) if size > 0 else BASE_POINTS)
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
