"""Small pieces of the model manager page: sizes, tables shown whole, a download row, an inline note."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from localmind.core.hub import DownloadProgress
from localmind.workers.messages import phrase_text


def human_size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return ""


def human_duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def fit_widths(needs: list[int], available: int, floor: int, cells: list[int] | None = None) -> list[int]:
    """Column widths within ``available``: the first column gets what it needs (space left over goes to it too);
    the others are capped at one width T, the largest that fits, so the widest are narrowed first. A column whose
    cells are short (``cells``, at most twice ``floor``: a size, "Fits") keeps its cells whole — only its header
    may be cut; a long one goes no lower than ``floor``. Only when even that is not enough is the first column
    narrowed."""
    first, others = needs[0], needs[1:]
    if sum(needs) <= available:
        return [available - sum(others), *others]
    cell_widths = (cells or needs)[1:]
    kept = [c if c <= 2 * floor else floor for c in cell_widths]
    room = available - first

    def capped(cap: int) -> list[int]:
        return [min(need, max(cap, keep)) for need, keep in zip(others, kept, strict=True)]

    low, high = 0, max(others, default=0)
    while low < high:  # the largest cap with the columns' sum within the room
        mid = (low + high + 1) // 2
        if sum(capped(mid)) <= room:
            low = mid
        else:
            high = mid - 1
    widths = capped(low)
    return [max(available - sum(widths), floor), *widths]


class WholeTable(QTableWidget):
    """A short table shown whole: as tall as its rows, never a box scrolled inside the scrolled page.

    The height is asked for at layout time, so it follows the theme's fonts and paddings.
    """

    _names_first = False

    def __init__(self, columns: int) -> None:
        super().__init__(0, columns)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def _content_height(self) -> int:
        rows = sum(self.rowHeight(r) for r in range(self.rowCount())) or self.verticalHeader().defaultSectionSize()
        bar = self.horizontalScrollBar()
        scrollbar = bar.sizeHint().height() if bar.maximum() > 0 else 0
        return rows + self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth() + scrollbar

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._content_height())

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), self._content_height())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self.updateGeometry()
            self.fit_columns()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def names_first(self) -> None:
        """Give the first column (the names) the room it needs; when the table is too narrow for everything, the
        widest other columns (a licence, a long verdict) are narrowed first and their text elided (the tooltip has
        it whole). Qt's own stretch would cut the names instead ("Qwen3…")."""
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self._names_first = True
        self.fit_columns()

    def fit_columns(self) -> None:
        if not self._names_first or self.columnCount() == 0:
            return
        header = self.horizontalHeader()
        cells = [self.sizeHintForColumn(c) for c in range(self.columnCount())]
        needs = [max(cell, header.sectionSizeHint(c)) for c, cell in enumerate(cells)]
        floor = self.fontMetrics().horizontalAdvance("M") * 6
        widths = fit_widths(needs, self.viewport().width(), floor, cells)
        for column, width in enumerate(widths):
            self.setColumnWidth(column, width)


def make_table(columns: int) -> WholeTable:
    table = WholeTable(columns)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.setShowGrid(False)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    header.setHighlightSections(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    return table


def hbox(*widgets: QWidget | None) -> QHBoxLayout:
    row = QHBoxLayout()
    for widget in widgets:
        if widget is None:
            row.addStretch(1)
        else:
            row.addWidget(widget)
    return row


def vbox(parent: QWidget, *items: QWidget | QHBoxLayout) -> QVBoxLayout:
    column = QVBoxLayout(parent)
    for item in items:
        if isinstance(item, QHBoxLayout):
            column.addLayout(item)
        else:
            column.addWidget(item)
    return column


class InlineNote(QLabel):
    """Feedback shown right where the user acted (under the buttons of that section), hidden while empty.

    Text that is not ours (repo ids, paths, error details) goes in as plain text.
    """

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("InlineNote")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()

    def show_text(self, text: str, *, error: bool = False) -> None:
        self.setProperty("error", error)
        self.style().unpolish(self)
        self.style().polish(self)
        self.setText(text)
        self.setVisible(bool(text))


class DownloadRow(QWidget):
    """One download: name, bar, bytes/speed/ETA or what went wrong, and its buttons."""

    pause_clicked = Signal(str)
    resume_clicked = Signal(str)
    cancel_clicked = Signal(str)

    def __init__(self, key: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.name = QLabel(name)
        self.name.setTextFormat(Qt.TextFormat.PlainText)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)  # the line below says how far, in bytes and time
        self.detail = QLabel()
        self.detail.setObjectName("DownloadDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.pause_button = QPushButton()
        self.resume_button = QPushButton()
        self.cancel_button = QPushButton()
        self.pause_button.clicked.connect(lambda: self.pause_clicked.emit(self.key))
        self.resume_button.clicked.connect(lambda: self.resume_clicked.emit(self.key))
        self.cancel_button.clicked.connect(lambda: self.cancel_clicked.emit(self.key))
        top = QHBoxLayout()
        top.addWidget(self.name, 1)
        for button in (self.pause_button, self.resume_button, self.cancel_button):
            top.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addLayout(top)
        layout.addWidget(self.bar)
        layout.addWidget(self.detail)
        self.retranslate()
        self.set_running(True)

    def retranslate(self) -> None:
        self.pause_button.setText(self.tr("Pause"))
        self.resume_button.setText(self.tr("Resume"))
        self.cancel_button.setText(self.tr("Cancel"))

    def set_running(self, running: bool) -> None:
        self.pause_button.setVisible(running)
        self.resume_button.setVisible(not running)

    def show_progress(self, p: DownloadProgress) -> None:
        self.set_running(True)
        self.bar.setValue(int(1000 * p.fraction))
        if p.phase == "listing":
            text = self.tr("Asking Hugging Face for the file list…")
        elif p.phase == "preparing":
            # The steps' wording comes from the engine (English); the line itself is translated.
            text = self.tr("Preparing the model for this computer (once)…")
        elif p.phase in ("installing", "done"):
            text = self.tr("Installing…")
        else:
            text = self.tr("{done} of {total} · {speed}/s · {eta} left · file {n} of {count}").format(
                done=human_size(p.done_bytes),
                total=human_size(p.total_bytes),
                speed=human_size(p.speed_bps),
                eta=human_duration(p.eta_s),
                n=min(p.files_done + 1, p.files_total),
                count=p.files_total,
            )
        if p.status:
            text += "\n" + phrase_text(p.status)  # the hub's words (a retry, a damaged file) in the UI's language
        self.detail.setText(text)

    def show_stopped(self, text: str, done: int = 0, total: int = 0) -> None:
        self.set_running(False)
        if total:
            self.bar.setValue(int(1000 * done / total))
        self.detail.setText(text)
