"""Issue 21: both themes meet WCAG AA for text, show where the keyboard focus is, and follow the system font size."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from localmind.settings import Settings
from localmind.ui import theme
from localmind.ui.settings_dialog import SettingsDialog

pytestmark = pytest.mark.gui

THEMES = (theme.LIGHT, theme.DARK)
AA_TEXT = 4.5  # WCAG 2.x 1.4.3 for normal text
AA_NON_TEXT = 3.0  # WCAG 2.x 1.4.11: the focus ring against what it sits on


def luminance(colour: str) -> float:
    c = QColor(colour)

    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def backgrounds(c: theme.ThemeColors) -> list[str]:
    """Where text without its own background can sit: the window's surfaces, a hovered or selected row."""
    return [c.window, c.sidebar, c.surface, c.raised, c.hover, c.selected]


def rules(sheet: str) -> list[tuple[str, dict[str, str]]]:
    found = []
    for chunk in sheet.split("}"):
        if "{" not in chunk:
            continue
        selector, _, body = chunk.partition("{")
        decls = {}
        for decl in body.split(";"):
            name, _, value = decl.partition(":")
            if value.strip():
                decls[name.strip()] = value.strip()
        found.append((" ".join(selector.split()), decls))
    return found


def test_contrast_is_computed_as_wcag_says() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic just-failing grey


@pytest.mark.parametrize("c", THEMES, ids=lambda c: c.name)
def test_every_text_colour_of_the_stylesheet_meets_aa_on_its_background(qapp: Any, c: theme.ThemeColors) -> None:
    failures = []
    checked = 0
    for selector, decls in rules(theme.stylesheet(c)):
        colour = decls.get("color")
        if colour is None or not colour.startswith("#") or ":disabled" in selector:
            continue  # disabled controls are exempt (WCAG 1.4.3)
        own = decls.get("background", "")
        behind = [own] if own.startswith("#") else backgrounds(c)
        for bg in behind:
            checked += 1
            if contrast(colour, bg) < AA_TEXT:
                failures.append(f"{selector}: {colour} on {bg} is {contrast(colour, bg):.2f}:1")
    assert checked > 40
    assert failures == []


@pytest.mark.parametrize("c", THEMES, ids=lambda c: c.name)
def test_the_palettes_text_roles_meet_aa(qapp: Any, c: theme.ThemeColors) -> None:
    pal = theme.palette_for(c)
    role = QPalette.ColorRole
    pairs = [
        (role.WindowText, role.Window),
        (role.Text, role.Base),
        (role.Text, role.AlternateBase),
        (role.ButtonText, role.Button),
        (role.HighlightedText, role.Highlight),
        (role.PlaceholderText, role.Base),
        (role.ToolTipText, role.ToolTipBase),
        (role.Link, role.Base),
        (role.Link, role.Window),
    ]
    failures = [
        f"{fg.name} on {bg.name}: {contrast(pal.color(fg).name(), pal.color(bg).name()):.2f}:1"
        for fg, bg in pairs
        if contrast(pal.color(fg).name(), pal.color(bg).name()) < AA_TEXT
    ]
    assert failures == []
    for bg in (c.accent, c.accent_hover):
        assert contrast(c.on_accent, bg) >= AA_TEXT  # the primary buttons' text, also when hovered
    assert contrast(c.warning_text, c.warning_bg) >= AA_TEXT
    for bg in backgrounds(c):
        assert contrast(c.focus, bg) >= AA_NON_TEXT


@pytest.mark.parametrize("c", THEMES, ids=lambda c: c.name)
def test_every_styled_control_has_a_focus_rule(qapp: Any, c: theme.ThemeColors) -> None:
    sheet = " ".join(theme.stylesheet(c).split())
    for selector in (
        "#PrimaryButton:focus",
        "#SecondaryButton:focus",
        "#PresetButton:focus",
        "#HeaderButton:focus",
        "#GhostButton:focus",
        "#SendButton:focus",
        "QComboBox:focus",
        "QLineEdit:focus",
        "QPlainTextEdit:focus",
        "QCheckBox:focus",
        "QTabBar::tab:focus",
        "#ConversationList:focus",
    ):
        assert selector in sheet, selector
    assert f"border: 2px solid {c.focus}" in sheet


def tab_chain(window: QWidget) -> list[QWidget]:
    first = window.focusWidget() or window
    chain, widget = [], first.nextInFocusChain()
    while widget is not first and len(chain) < 400:
        reachable = widget.isVisible() and widget.isEnabled() and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        if reachable and widget.window() is window and widget.focusProxy() is None:
            chain.append(widget)
        widget = widget.nextInFocusChain()
    return chain


@pytest.mark.parametrize("c", THEMES, ids=lambda c: c.name)
def test_the_keyboard_focus_is_visible_on_every_control_of_settings(qtbot: Any, c: theme.ThemeColors) -> None:
    """Each control Tab reaches in Settings looks different when it has the focus (the ring), in both themes."""
    previous, app = theme._current, QApplication.instance()
    assert isinstance(app, QApplication)
    palette = QPalette(app.palette())
    theme._current = c
    app.setPalette(theme.palette_for(c))
    try:
        d = SettingsDialog(Settings(), "", {}, has_conversation=True)
        qtbot.addWidget(d)
        d.show()
        d.activateWindow()
        qtbot.waitActive(d)
        unmarked = []
        for tab in (d.chat_tab, d.app_tab, d.server_tab):
            d.tabs.setCurrentWidget(tab)
            chain = [w for w in tab_chain(d) if tab.isAncestorOf(w) or w in (d.ok_button, d.tabs.tabBar())]
            assert len(chain) >= 3
            for widget in chain:
                (d.cancel_button if widget is d.ok_button else d.ok_button).setFocus()
                plain = widget.grab().toImage()
                widget.setFocus(Qt.FocusReason.TabFocusReason)
                qtbot.waitUntil(widget.hasFocus, timeout=1000)
                if widget.grab().toImage() == plain:
                    unmarked.append(f"{type(widget).__name__} {widget.objectName()} {getattr(widget, 'text', str)()!r}")
        assert unmarked == []
    finally:
        theme._current = previous
        app.setPalette(palette)


def test_the_font_follows_the_system_size(qapp: Any) -> None:
    large = QFont("DejaVu Sans")
    large.setPointSizeF(16.0)
    assert theme._base_font(large).pointSizeF() == 16.0
    small = QFont("DejaVu Sans")
    small.setPointSizeF(9.0)
    assert theme._base_font(small).pointSizeF() == theme.BASE_POINTS  # never below what the layout was drawn for
    before = QApplication.font()
    try:
        QApplication.setFont(theme._base_font(large))
        sheet = theme.stylesheet(theme.LIGHT)
        # The welcome title was 26 px at a 14 px base: with 16 pt text it is 16 × 26/14 pt.
        assert "#WelcomeTitle { font-size: 29.7pt;" in " ".join(sheet.split())
        assert re.search(r"font-size: \d+px", sheet) is None  # no size that ignores the system's
    finally:
        QApplication.setFont(before)


def test_combo_boxes_are_flat_with_the_themes_arrow(qtbot: Any) -> None:
    """Issue 21: combo boxes had a raised dark edge in dark (Fusion's drop-down bevel, its shadow black): the
    drop-down is flat, with the theme's arrow."""
    c = theme.DARK
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    style, palette = app.style().name(), QPalette(app.palette())
    app.setStyle("Fusion")  # as the app runs (ThemeManager)
    app.setPalette(theme.palette_for(c))
    try:
        _check_flat_combo(qtbot, c)
    finally:
        app.setStyle(style)
        app.setPalette(palette)
    for colours in THEMES:
        with open(theme._arrow(colours), encoding="utf-8") as arrow:
            assert colours.muted in arrow.read()


def _check_flat_combo(qtbot: Any, c: theme.ThemeColors) -> None:
    from PySide6.QtWidgets import QComboBox, QDialog, QPushButton, QVBoxLayout

    d = QDialog()
    d.setObjectName("SettingsDialog")
    qtbot.addWidget(d)
    combo, other = QComboBox(), QPushButton("x")
    combo.addItems(["Automatic (best available)", "CPU"])
    layout = QVBoxLayout(d)
    layout.addWidget(combo)
    layout.addWidget(other)
    d.setStyleSheet(theme.stylesheet(c))
    d.show()
    qtbot.waitExposed(d)
    other.setFocus()
    image = combo.grab().toImage()
    # A bevel is a line down the drop-down part; the flat arrow is a few pixels tall.
    background = QColor(c.window).lightness()
    inner = range(4, image.height() - 4)
    lines = [
        x
        for x in range(image.width() - 28, image.width() - 4)
        if sum(abs(image.pixelColor(x, y).lightness() - background) > 6 for y in inner) > 0.6 * len(inner)
    ]
    assert lines == [], f"lines down the drop-down at x = {lines} (width {image.width()})"
