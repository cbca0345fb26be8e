"""Pause and cancel for a running download: the app's one cancel token (core/cancel.py), under the names the Hub
client has always used. A stop raises :class:`~localmind.core.hub.errors.DownloadStopped`, which is
:class:`~localmind.core.cancel.Cancelled`: the task runner and the download see the same stop."""

from __future__ import annotations

from localmind.core.cancel import CANCEL, PAUSE, CancelToken

TransferControl = CancelToken  # the same type: a task's context is passed as a download's control

__all__ = ["CANCEL", "PAUSE", "TransferControl"]
