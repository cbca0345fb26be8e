"""The catalog sections of the model manager page: the model recommended to start, and the ready-to-run models
with how each fits this computer."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QTableWidgetItem

from localmind.core.catalog import CatalogEntry, Fit, fit_hint, recommend, tokens_per_s
from localmind.core.hub import request_for_catalog
from localmind.ui.model_manager.widgets import InlineNote, hbox, human_size, make_table, vbox
from localmind.viewmodels.plain_text import tooltip

# The page supplies every attribute a section uses; typed as Any so mypy checks them on the page itself.
_Base: Any = object


class CatalogActions(_Base):  # type: ignore[misc]
    """Mixed into :class:`ModelManagerPage` (strings translate in its context)."""

    recommended: CatalogEntry | None = None

    def _build_recommended(self) -> None:
        self.recommended_box = QGroupBox()
        self.recommended_label = QLabel()
        self.recommended_label.setWordWrap(True)
        self.recommended_button = QPushButton()
        self.recommended_button.setObjectName("PrimaryButton")
        self.recommended_button.clicked.connect(self.download_recommended)
        box = QHBoxLayout(self.recommended_box)
        box.addWidget(self.recommended_label, 1)
        box.addWidget(self.recommended_button)

    def _build_catalog(self) -> None:
        self.catalog_box = QGroupBox()
        self.catalog_table = make_table(5)
        self.catalog_table.names_first()
        self.catalog_download = QPushButton()
        self.catalog_download.clicked.connect(self.download_selected_catalog_entry)
        self.catalog_page = QPushButton()
        self.catalog_page.clicked.connect(self._open_model_page)
        self.catalog_note = InlineNote()
        vbox(
            self.catalog_box,
            self.catalog_table,
            hbox(self.catalog_download, self.catalog_page, None),
            self.catalog_note,
        )

    def _retranslate_catalog(self) -> None:
        self.recommended_box.setTitle(self.tr("Recommended to start"))
        self.recommended_button.setText(self.tr("Download"))
        self.catalog_box.setTitle(self.tr("Ready-to-run models"))
        self.catalog_table.setHorizontalHeaderLabels(
            [self.tr("Model"), self.tr("Download"), self.tr("Memory"), self.tr("On this computer"), self.tr("Licence")]
        )
        self.catalog_table.fit_columns()
        self.catalog_download.setText(self.tr("Download"))
        self.catalog_page.setText(self.tr("Model page"))

    def _refresh_catalog(self, language: str) -> None:
        """The recommended model and the catalog's rows for this computer and device, described in ``language``."""
        pick = recommend(self.catalog, self.machine, self.device)
        self.recommended = pick
        self.recommended_box.setVisible(pick is not None)
        if pick is not None:
            self.recommended_label.setText(
                self.tr("{name} ({size}) — {description}").format(
                    name=pick.name,
                    size=human_size(pick.variant_for(self.device).download_bytes),
                    description=pick.description_for(language),
                )
            )
        self.catalog_table.setRowCount(len(self.catalog))
        for i, entry in enumerate(self.catalog):
            variant = entry.variant_for(self.device)
            name = entry.name + ("  ★" if pick is not None and entry.id == pick.id else "")
            cells = [
                name,
                human_size(variant.download_bytes),
                human_size(variant.ram_bytes),
                self.fit_text(entry),
                entry.licence,
            ]
            tip = [entry.description_for(language), entry.form_note_for(language)]
            speed = tokens_per_s(entry, self.machine)
            if speed is not None and self.device == "cpu":
                tip.append(
                    self.tr("About {n} tokens per second on this computer (an estimate).").format(n=f"{speed:.0f}")
                )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tooltip("\n".join(t for t in tip if t)))
                item.setData(Qt.ItemDataRole.UserRole, entry.id)
                self.catalog_table.setItem(i, column, item)
        self.catalog_table.updateGeometry()
        self.catalog_table.fit_columns()

    def fit_text(self, entry: CatalogEntry) -> str:
        fit = fit_hint(entry, self.machine, self.device).fit
        texts: dict[Fit, str] = {
            Fit.GOOD: self.tr("Fits"),
            Fit.TIGHT: self.tr("Fits, but tight: close other programs"),
            Fit.TOO_BIG: self.tr("Too big for this computer's memory"),
            Fit.NO_DISK: self.tr("Not enough free disk space"),
        }
        return texts[fit]

    def select_catalog_entry(self, entry_id: str) -> None:
        for i, entry in enumerate(self.catalog):
            if entry.id == entry_id:
                self.catalog_table.selectRow(i)

    def download_recommended(self) -> None:
        if self.recommended is not None:
            self.start_download(request_for_catalog(self.recommended, self.device))

    def download_selected_catalog_entry(self) -> None:
        entry_id = self._selected_id(self.catalog_table)
        entry = next((e for e in self.catalog if e.id == entry_id), None)
        if entry is None:
            self.show_message(self.tr("Pick a model in the list first."), near=self.catalog_note)
            return
        hint = fit_hint(entry, self.machine, self.device)
        if not hint.usable and not self._confirm(self.tr("Download anyway?"), self.fit_text(entry)):
            return
        self.start_download(request_for_catalog(entry, self.device), near=self.catalog_note)

    def _open_model_page(self) -> None:
        entry_id = self._selected_id(self.catalog_table)
        entry = next((e for e in self.catalog if e.id == entry_id), None)
        if entry is None:
            self.show_message(self.tr("Pick a model in the list first."), near=self.catalog_note)
            return
        QDesktopServices.openUrl(QUrl(entry.page_url))
