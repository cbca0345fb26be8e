"""The strip under the chat: model and device, loading state, speed of the last answer, and how full the context is."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QWidget

from localmind.engine.model_ref import ModelRef
from localmind.engine.types import LoadInfo, TurnStats
from localmind.ui import icons, theme
from localmind.ui.context_gauge import ContextGauge
from localmind.ui.plain import tooltip
from localmind.workers.messages import phrase_text

DEVICE_NAMES = {"cpu": "CPU", "cuda": "CUDA GPU", "dml": "DirectML GPU", "coreml": "Core ML"}
HIGH_CONTEXT = 0.9
# Words in the engine's reason for not using a device that mean its support is not part of this installation.
MISSING_SUPPORT = ("not installed", "interface not available", "not been built with", "failed to load library")


def _sep() -> QLabel:
    label = QLabel("·")
    label.setObjectName("Separator")
    return label


class StatusBar(QFrame):
    def __init__(self, parent: QWidget | None = None, *, indicators: Sequence[QWidget] = ()) -> None:
        """``indicators``: features' own status (the API server's), shown after the turn's figures."""
        super().__init__(parent)
        self.setObjectName("StatusBar")
        self._info: LoadInfo | None = None
        self._loading: str | None = None
        self._tuning: float | None = None  # an exported model's first-load rewrite, 0..1
        self._stats: TurnStats | None = None
        self._context: tuple[int, int] = (0, 0)
        self._documents = 0  # tokens of document passages within the context used (Documents sets it)
        self._failed = False

        self.chip = QLabel()
        self.chip.setFixedSize(QSize(16, 16))
        self.model_label = QLabel()
        self.model_label.setObjectName("ModelLabel")
        self.device_label = QLabel()
        self.device_label.setObjectName("DeviceLabel")
        self.busy = QProgressBar()
        self.busy.setObjectName("BusyBar")
        self.busy.setRange(0, 0)
        self.busy.setTextVisible(False)
        self.busy.setFixedWidth(80)
        self.busy.hide()
        self.speed_sep = _sep()
        self.ttft_label = QLabel()
        self.ttft_label.setObjectName("TtftLabel")
        self.speed_label = QLabel()
        self.speed_label.setObjectName("SpeedLabel")
        self.dropped_label = QLabel()
        self.dropped_label.setObjectName("DroppedNotice")
        self.gauge = ContextGauge()  # draws the documents' share as its own segment
        self.gauge.setObjectName("ContextGauge")
        self.gauge.setTextVisible(False)
        self.gauge.setFixedWidth(110)
        self.gauge_label = QLabel()
        self.gauge_label.setObjectName("ContextLabel")

        # Shrinkable below their text in a narrow window, rather than forcing the window wider.
        for label in (self.model_label, self.device_label, self.ttft_label, self.speed_label, self.dropped_label):
            label.setMinimumWidth(1)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 5, 14, 5)
        row.setSpacing(8)
        for widget in (
            self.chip,
            self.model_label,
            self.device_label,
            self.busy,
            self.speed_sep,
            self.ttft_label,
            self.speed_label,
            self.dropped_label,
            *indicators,
        ):
            row.addWidget(widget)
        row.addStretch(1)
        row.addWidget(self.gauge, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.gauge_label)
        self.apply_theme()
        self._refresh()

    # -- updates -------------------------------------------------------------------------------------------------
    def set_loading(self, model_dir: str | None) -> None:
        """``model_dir`` is loading now (``None``: nothing is loading)."""
        self._loading = model_dir
        self._tuning = None
        if model_dir:
            self._failed = False
        self._refresh()

    def set_load_progress(self, fraction: float) -> None:
        """The model loading is being tuned for this computer (an exported model's first load): 0..1."""
        if self._loading is not None:
            self._tuning = fraction
            self._refresh()

    def set_model(self, info: LoadInfo | None) -> None:
        self._info = info
        self._loading = None
        self._failed = False
        self._stats = None
        self._context = (0, info.context_budget if info else 0)
        self._refresh()

    def set_load_failed(self) -> None:
        self._loading = None
        self._info = None
        self._failed = True
        self._refresh()

    def set_turn_stats(self, stats: TurnStats | None) -> None:
        self._stats = stats
        self._refresh()

    def set_context(self, used: int, budget: int) -> None:
        self._context = (used, budget)
        self._refresh()

    def set_documents_context(self, tokens: int) -> None:
        """How many of the tokens used are document passages (shown apart in the gauge and its label)."""
        self._documents = tokens
        self._refresh()

    # -- drawing ---------------------------------------------------------------------------------------------------
    def _refresh(self) -> None:
        self._refresh_model()
        self._refresh_stats()
        self._refresh_gauge()

    def _refresh_model(self) -> None:

        info = self._info
        self.busy.setVisible(self._loading is not None)
        if self._loading is not None:
            name = ModelRef.parse(self._loading).display_name  # a folder's name, or a remote model's
            if self._tuning is not None:
                text = self.tr("Preparing {name} for this computer (first time only)… {percent}%")
                self.model_label.setText(text.format(name=name, percent=int(self._tuning * 100)))
            else:
                self.model_label.setText(self.tr("Loading {name}…").format(name=name))
            self.device_label.setText("")
            self.device_label.setToolTip("")
        elif info is not None:
            self.model_label.setText(info.model_name)
            self.model_label.setToolTip(tooltip(info.model_dir))
            device = DEVICE_NAMES.get(info.device, info.device)
            if info.fallback_reasons:
                self.device_label.setText(self.tr("on {device} ⓘ").format(device=device))
                self.device_label.setToolTip(tooltip(self._fallback_text(device, info.fallback_reasons)))
            else:
                self.device_label.setText(self.tr("on {device}").format(device=device))
                self.device_label.setToolTip("")
        else:
            self.model_label.setText(self.tr("Model failed to load") if self._failed else self.tr("No model loaded"))
            self.model_label.setToolTip("")
            self.device_label.setText("")
            self.device_label.setToolTip("")
        self.model_label.setAccessibleName(self.model_label.text())

    def _fallback_text(self, device: str, reasons: Sequence[tuple[str, str]]) -> str:
        """Why faster devices were not used: plain words first, what the engine said (library names, error codes)
        under "Details" (issue 21: the tooltip opened on "libonnxruntime-genai-cuda.so")."""
        lines = [self.tr("Running on {device}. Not used:").format(device=device)]
        lines += [f"• {DEVICE_NAMES.get(d, d)}: {self._plain_reason(str(why))}" for d, why in reasons]
        lines += ["", self.tr("Details:")]
        lines += [f"• {DEVICE_NAMES.get(d, d)}: {phrase_text(why)}" for d, why in reasons]
        return "\n".join(lines)

    def _plain_reason(self, reason: str) -> str:
        low = reason.lower()
        if "failed when answering" in low:
            return self.tr("it failed while answering before, so this model runs on the processor")
        if any(word in low for word in MISSING_SUPPORT):
            return self.tr("this copy of LocalMind does not include the support for it")
        if "driver" in low:
            return self.tr("no working driver for it was found")
        if "memory" in low:
            return self.tr("it has too little free memory for this model")
        return self.tr("it could not be started")

    def _refresh_stats(self) -> None:
        stats = self._stats
        has_stats = stats is not None and stats.generated_tokens > 0
        self.speed_sep.setVisible(has_stats)
        self.ttft_label.setVisible(has_stats)
        self.speed_label.setVisible(has_stats)
        if stats is not None and has_stats:
            self.ttft_label.setText(
                self.tr("First token {seconds} s").format(seconds=f"{stats.time_to_first_token_s:.2f}")
            )
            self.speed_label.setText(self.tr("{rate} tok/s").format(rate=f"{stats.tokens_per_second:.1f}"))
        dropped = stats.dropped_messages if stats is not None else 0
        self.dropped_label.setVisible(dropped > 0)
        if dropped:
            self.dropped_label.setText(
                self.tr("⚠ {count} older message(s) left out to fit the context").format(count=dropped)
            )
            self.dropped_label.setToolTip(
                self.tr(
                    "The model only sees the most recent part of a long chat. Start a new chat or raise the context size in Settings."
                )
            )

    def _refresh_gauge(self) -> None:
        used, budget = self._context
        self.gauge.setVisible(budget > 0)
        self.gauge_label.setVisible(budget > 0)
        if budget <= 0:
            return
        self.gauge.setRange(0, budget)
        self.gauge.setValue(min(used, budget))
        self.gauge_label.setText(self.tr("{used} / {budget} tokens").format(used=f"{used:,}", budget=f"{budget:,}"))
        documents = min(self._documents, used)
        self.gauge.set_documents(documents)
        if documents:
            self.gauge_label.setText(
                self.tr("{used} / {budget} tokens ({documents} from documents)").format(
                    used=f"{used:,}", budget=f"{budget:,}", documents=f"{documents:,}"
                )
            )
        level = "high" if used >= HIGH_CONTEXT * budget else "normal"
        if self.gauge.property("level") != level:
            self.gauge.setProperty("level", level)
            self.gauge.style().unpolish(self.gauge)
            self.gauge.style().polish(self.gauge)
        self.gauge.setAccessibleName(self.tr("Context used"))
        self.gauge.setToolTip(self.tr("How much of the model's context this chat uses"))
        if documents:
            self.gauge.setToolTip(
                self.tr(
                    "How much of the model's context this chat uses: {documents} tokens are passages from your "
                    "documents (the first, differently coloured part), {rest} the conversation."
                ).format(documents=f"{documents:,}", rest=f"{used - documents:,}")
            )

    def apply_theme(self) -> None:
        c = theme.current()
        self.chip.setPixmap(icons.pixmap("chip", c.muted, 16))

    def retranslate(self) -> None:
        self._refresh()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
