"""The "add a model by its Hugging Face id" section: look a repo up, pick a folder or a variant, download it."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QGroupBox, QLineEdit, QPushButton

from localmind.core import secrets
from localmind.core.hub import DownloadRequest, RepoListing, list_repo
from localmind.core.hub.community import is_community, variant_bytes
from localmind.engine.formats.variants import choose_variant, find_variants
from localmind.ui.model_manager.widgets import InlineNote, hbox, human_size, vbox

# The page supplies every attribute a section uses; typed as Any so mypy checks them on the page itself.
_Base: Any = object


class RepoActions(_Base):  # type: ignore[misc]
    """Mixed into :class:`ModelManagerPage` (strings translate in its context)."""

    _listing: RepoListing | None = None
    # The lookup whose answer the page waits for ("list-repo:N"), and its repo. A lookup cannot be interrupted (one
    # HTTP call), so Stop or a new lookup only forgets it: its answer, whenever it comes, is dropped.
    _lookup_key: str | None = None
    _lookup_repo = ""
    _lookups = 0

    def _build_repo(self) -> None:
        self.repo_box = QGroupBox()
        self.repo_input = QLineEdit()
        self.repo_input.setObjectName("RepoInput")
        self.repo_input.returnPressed.connect(self.find_repo)
        self.repo_find = QPushButton()
        self.repo_find.setObjectName("RepoFind")
        self.repo_find.clicked.connect(self._find_or_stop)
        self.repo_folders = QComboBox()
        self.repo_folders.setEnabled(False)
        self.repo_download = QPushButton()
        self.repo_download.setEnabled(False)
        self.repo_download.clicked.connect(self.download_repo_folder)
        self.repo_note = InlineNote()
        vbox(
            self.repo_box,
            hbox(self.repo_input, self.repo_find),
            hbox(self.repo_folders, self.repo_download),
            self.repo_note,
        )

    def _retranslate_repo(self) -> None:
        self.repo_box.setTitle(self.tr("Add a model from Hugging Face"))
        self.repo_input.setPlaceholderText(self.tr("owner/model, e.g. microsoft/Phi-3.5-mini-instruct-onnx"))
        self.repo_find.setText(self.tr("Stop") if self._lookup_key else self.tr("Find"))
        self.repo_download.setText(self.tr("Download this folder"))

    def _find_or_stop(self) -> None:
        if self._lookup_key is not None:
            self.stop_repo_lookup()
        else:
            self.find_repo()

    def find_repo(self) -> None:
        """Look the typed repo up. A lookup still running for another repo is forgotten (Enter, or Find after Stop)."""
        repo = self.repo_input.text().strip()
        if not repo:
            self.show_message(self.tr("Type a model id first (owner/model)."), near=self.repo_note)
            return
        if self._lookup_key is not None and repo == self._lookup_repo:
            return  # already looking it up
        self.repo_folders.clear()
        self.repo_folders.setEnabled(False)
        self.repo_download.setEnabled(False)
        self._listing = None
        self.show_message(self.tr("Looking up {repo}…").format(repo=repo), near=self.repo_note)
        settings = self._settings  # the keyring is asked in the worker thread: it may block
        self._lookups += 1
        key = f"list-repo:{self._lookups}"
        if self.controller.run_task(key, lambda: list_repo(repo, token=secrets.get_token(), settings=settings)):
            self._set_lookup(key, repo)

    def stop_repo_lookup(self) -> None:
        if self._lookup_key is None:
            return
        repo = self._lookup_repo
        self._set_lookup(None)
        self.show_message(self.tr("Stopped looking up {repo}.").format(repo=repo), near=self.repo_note)

    def _set_lookup(self, key: str | None, repo: str = "") -> None:
        self._lookup_key, self._lookup_repo = key, repo
        self.repo_find.setText(self.tr("Stop") if key else self.tr("Find"))

    def _lookup_answered(self, key: str) -> bool:
        """A lookup ended: True when the page still waits for this one (then it is over), False when forgotten."""
        if key != self._lookup_key:
            return False
        self._set_lookup(None)
        return True

    def _show_listing(self, listing: RepoListing) -> None:
        self._listing = listing
        if is_community(listing):
            self._show_variants(listing)
            return
        folders = listing.model_folders()
        if not folders:
            self.show_message(
                self.tr("{repo} holds no onnxruntime-genai model (no genai_config.json).").format(repo=listing.repo),
                error=True,
                near=self.repo_note,
            )
            return
        for folder in folders:
            label = f"{folder or self.tr('(repo root)')} — {human_size(listing.size_of(folder))}"
            self.repo_folders.addItem(label, ("folder", folder))
        preferred = next((i for i, f in enumerate(folders) if self.device in f.lower()), None)
        cpu = next((i for i, f in enumerate(folders) if "cpu" in f.lower()), 0)
        self.repo_folders.setCurrentIndex(preferred if preferred is not None else cpu)
        self.repo_folders.setEnabled(True)
        self.repo_download.setEnabled(True)
        self.repo_download.setText(self.tr("Download this folder"))
        self.show_message(
            self.tr("Pick the folder for your device (a cpu folder runs everywhere) and download it."),
            near=self.repo_note,
        )

    def _show_variants(self, listing: RepoListing) -> None:
        variants = find_variants(f.path for f in listing.files)
        best = choose_variant(variants, self.device)
        for variant in variants:
            size = human_size(variant_bytes(listing, variant))
            mark = self.tr(" (recommended here)") if best is not None and variant.name == best.name else ""
            self.repo_folders.addItem(
                f"{variant.name} — {variant.quantization} — {size}{mark}", ("variant", variant.name)
            )
        if best is not None:
            self.repo_folders.setCurrentIndex(variants.index(best))
        self.repo_folders.setEnabled(True)
        self.repo_download.setEnabled(True)
        self.repo_download.setText(self.tr("Download this variant"))
        self.show_message(
            self.tr(
                "An ONNX export without onnxruntime-genai settings: LocalMind downloads only the variant you pick "
                "and prepares it. Its architecture is checked first."
            ),
            near=self.repo_note,
        )

    def download_repo_folder(self) -> None:
        if self._listing is None or self.repo_folders.currentIndex() < 0:
            return
        kind, value = self.repo_folders.currentData()
        listing = self._listing
        if kind == "variant":
            request = DownloadRequest(listing.repo, listing.commit, variant=str(value), device=self.device)
        else:
            request = DownloadRequest(listing.repo, listing.commit, str(value))
        self.start_download(request, near=self.repo_note)
