"""How hard to try: timeouts, retries and backoff (tests inject fast ones)."""

from __future__ import annotations

import os
import random
import sys
from dataclasses import dataclass

DEFAULT_ENDPOINT = "https://huggingface.co"


def ask_only_for_what_the_user_asked() -> None:
    """Switch off what huggingface_hub sends on its own: telemetry in its User-Agent (the torch version) and its
    AI-agent detection, which fetches ``/api/agent-harnesses`` from the Hub in every session. LocalMind's promise is
    that nothing leaves unless the user asks; a user who sets ``HF_HUB_DISABLE_TELEMETRY`` decides for themselves."""
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:  # imported already: it read the variable then
        value = os.environ["HF_HUB_DISABLE_TELEMETRY"].upper() in {"1", "ON", "YES", "TRUE"}
        setattr(constants, "HF_HUB_DISABLE_TELEMETRY", value)  # noqa: B010  # the module is not typed that far


def hub_endpoint() -> str:
    """The Hub to talk to: ``HF_ENDPOINT`` when set (read now, not when huggingface_hub was imported)."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


@dataclass(frozen=True)
class HubSettings:
    endpoint: str | None = None  # None: hub_endpoint() at the time of the call
    connect_timeout_s: float = 15.0
    # No byte for this long means the transfer stalled: drop the connection and resume with Range.
    stall_timeout_s: float = 30.0
    # Attempts per file without progress; any progress resets the count (a flaky line still finishes).
    max_attempts: int = 6
    max_total_attempts: int = 60
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    progress_interval_s: float = 0.1
    use_xet: bool | None = None  # None: when the Hub offers it and hf_xet is installed
    fsync: bool = True

    def resolved_endpoint(self) -> str:
        return (self.endpoint or hub_endpoint()).rstrip("/")

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (exponential, capped, with jitter so clients spread out)."""
        delay = min(self.backoff_max_s, self.backoff_base_s * (2 ** max(0, attempt - 1)))
        return float(delay * (0.75 + random.random() * 0.5))
