"""What can go wrong with the Hub, as errors the user can act on."""

from __future__ import annotations

from localmind.core.cancel import Cancelled
from localmind.errors import Phrase, UserFacingError


class HubError(UserFacingError):
    """Listing or downloading from the Hub failed; the message says why and what to do."""


class AuthRequiredError(HubError):
    """401/403: the repo is gated or private and no (good) token was given."""

    def __init__(self, repo: str, *, had_token: bool) -> None:
        super().__init__("")
        page = f"https://huggingface.co/{repo}"
        if had_token:
            self.tell(
                "Hugging Face refused the access token for {repo} (gated or private model).",
                "Accept the model's licence on {page} with the account the token belongs to, "
                "or enter a new token in Settings.",
                repo=repo,
                page=page,
            )
        else:
            self.tell(
                "{repo} is gated or private: Hugging Face requires you to sign in to download it.",
                "Accept the model's licence on {page}, then enter a Hugging Face access token in Settings.",
                repo=repo,
                page=page,
            )
        self.repo = repo
        self.had_token = had_token


class HubUnreachableError(HubError):
    """The network failed (no connection, DNS, a dropped link): the one error a user fixes outside LocalMind."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message, hint=hint or "Check the internet connection (and proxy settings), then try again.")


def network_reason(exc: BaseException) -> Phrase:
    """What went wrong on the network, in words (never a class name such as ConnectError)."""
    name = type(exc).__name__
    if "Timeout" in name:
        return Phrase("no answer in time")
    if name in ("ConnectError", "ConnectionRefusedError", "gaierror"):
        return Phrase("cannot connect")
    if "Protocol" in name or name in ("ReadError", "WriteError", "StreamError", "CloseError"):
        return Phrase("the connection broke")
    return Phrase("network error")


class AlreadyInstalledError(HubError):
    def __init__(self, model_id: str) -> None:
        super().__init__("")
        self.tell(
            "{model} is already installed.",
            "Remove it first to download it again (`localmind models remove {model}`).",
            model=model_id,
        )
        self.model_id = model_id


class NotEnoughDiskError(HubError):
    def __init__(self, needed: int, free: int, where: str) -> None:
        super().__init__("")
        self.tell(
            "Not enough disk space: the download needs {needed} GB more, {free} GB is free on {where}.",
            "Free some space (or remove models you no longer use) and try again.",
            needed=f"{needed / 1e9:.2f}",
            free=f"{free / 1e9:.2f}",
            where=where,
        )
        self.needed = needed
        self.free = free


# The user paused or cancelled (or the app is closing); not an error, never shown as one. ``reason``: "pause",
# "cancel" or "shutdown". The app's one stop (core/cancel.py): raised by the control's check() and sleep().
DownloadStopped = Cancelled
