"""What can go wrong with the Hub, as errors the user can act on."""

from __future__ import annotations

from localmind.errors import UserFacingError


class HubError(UserFacingError):
    """Listing or downloading from the Hub failed; the message says why and what to do."""


class AuthRequiredError(HubError):
    """401/403: the repo is gated or private and no (good) token was given."""

    def __init__(self, repo: str, *, had_token: bool) -> None:
        page = f"https://huggingface.co/{repo}"
        if had_token:
            message = f"Hugging Face refused the access token for {repo} (gated or private model)."
            hint = f"Accept the model's licence on {page} with the account the token belongs to, or enter a new token in Settings."
        else:
            message = f"{repo} is gated or private: Hugging Face requires you to sign in to download it."
            hint = f"Accept the model's licence on {page}, then enter a Hugging Face access token in Settings."
        super().__init__(message, hint=hint)
        self.repo = repo
        self.had_token = had_token


class HubUnreachableError(HubError):
    """The network failed (no connection, DNS, a dropped link): the one error a user fixes outside LocalMind."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message, hint=hint or "Check the internet connection (and proxy settings), then try again.")


def network_reason(exc: BaseException) -> str:
    """What went wrong on the network, in words (never a class name such as ConnectError)."""
    name = type(exc).__name__
    if "Timeout" in name:
        return "no answer in time"
    if name in ("ConnectError", "ConnectionRefusedError", "gaierror"):
        return "cannot connect"
    if "Protocol" in name or name in ("ReadError", "WriteError", "StreamError", "CloseError"):
        return "the connection broke"
    return "network error"


class AlreadyInstalledError(HubError):
    def __init__(self, model_id: str) -> None:
        super().__init__(
            f"{model_id} is already installed.",
            hint=f"Remove it first to download it again (`localmind models remove {model_id}`).",
        )
        self.model_id = model_id


class NotEnoughDiskError(HubError):
    def __init__(self, needed: int, free: int, where: str) -> None:
        super().__init__(
            f"Not enough disk space: the download needs {needed / 1e9:.2f} GB more, {free / 1e9:.2f} GB is free on {where}.",
            hint="Free some space (or remove models you no longer use) and try again.",
        )
        self.needed = needed
        self.free = free


class DownloadStopped(Exception):
    """The user paused or cancelled; not an error, never shown as one."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason  # "pause" or "cancel"
