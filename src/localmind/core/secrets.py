"""The Hugging Face access token: in the OS keyring, or only in memory.

The token is never written to a file or a log by LocalMind. Where the system
has no keyring (a headless Linux box, a minimal desktop), the token is kept
for this session only and the caller is told so, so it can say it to the user.
Backends that store secrets in plain files (``keyrings.alt``) count as no
keyring: using them would write the token to disk behind the user's back.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import threading
from typing import Any

SERVICE = "LocalMind"
HF_TOKEN_NAME = "huggingface-token"

log = logging.getLogger(__name__)


class TokenStore(str, enum.Enum):
    KEYRING = "keyring"
    SESSION = "session"  # no usable keyring: kept in memory until the app exits


_session: dict[str, str] = {}
_lock = threading.Lock()


def _keyring() -> Any:
    """keyring, imported when a token is first asked for: it costs the window's start-up ~50-200 ms (issue 12)."""
    import keyring
    import keyring.errors

    return keyring


def _usable_backend() -> bool:
    backend = _keyring().get_keyring()
    module = type(backend).__module__
    if module.startswith(("keyring.backends.fail", "keyrings.alt", "keyring.backends.null")):
        return False
    # The chainer with nothing to chain is the "no backend" case in disguise.
    backends = getattr(backend, "backends", None)
    return not (backends is not None and not backends)


def set_token(token: str, name: str = HF_TOKEN_NAME) -> TokenStore:
    """Store ``token``; returns where it went. Raises ValueError for an empty token."""
    token = token.strip()
    if not token:
        raise ValueError("empty token")
    with _lock:
        keyring = _keyring()
        if _usable_backend():
            try:
                keyring.set_password(SERVICE, name, token)
                _session.pop(name, None)
                return TokenStore.KEYRING
            except keyring.errors.KeyringError as exc:
                # The message names the backend, never the secret.
                log.warning(
                    "The system keyring refused the token (%s); keeping it for this session only.", type(exc).__name__
                )
        _session[name] = token
        return TokenStore.SESSION


def get_token(name: str = HF_TOKEN_NAME) -> str | None:
    with _lock:
        if name in _session:
            return _session[name]
        if not _usable_backend():
            return None
        keyring = _keyring()
        try:
            found = keyring.get_password(SERVICE, name)
            return str(found) if found is not None else None
        except keyring.errors.KeyringError:
            return None


def delete_token(name: str = HF_TOKEN_NAME) -> None:
    with _lock:
        _session.pop(name, None)
        keyring = _keyring()
        if _usable_backend():
            with contextlib.suppress(keyring.errors.KeyringError):  # nothing stored there: already deleted
                keyring.delete_password(SERVICE, name)


def token_store(name: str = HF_TOKEN_NAME) -> TokenStore | None:
    """Where the token is now, or None when there is none."""
    with _lock:
        if name in _session:
            return TokenStore.SESSION
    return TokenStore.KEYRING if get_token(name) else None


def keyring_available() -> bool:
    return _usable_backend()
