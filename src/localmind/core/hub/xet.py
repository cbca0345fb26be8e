"""Progress and cancel for huggingface_hub's Xet path, which reports only through a tqdm class."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tqdm.auto import tqdm

from localmind.core.hub.control import TransferControl


def progress_class(on_bytes: Callable[[int], None], control: TransferControl) -> type[tqdm]:
    """A tqdm class that forwards byte counts and stops the transfer (by raising) when asked.

    The bar itself is never drawn; counting happens before tqdm's own update,
    which returns early for a disabled bar.
    """

    class _Progress(tqdm):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)
            self._counts_bytes = kwargs.get("unit") == "B"

        def update(self, n: float | None = 1) -> bool | None:
            if self._counts_bytes and n:
                on_bytes(int(n))
            control.check()
            return super().update(n)  # type: ignore[no-any-return]

    return _Progress
