"""The model manager page (a package: the page, its sections, the Hub search, small widgets)."""

from localmind.ui.model_manager.page import ModelManagerPage
from localmind.ui.model_manager.widgets import DownloadRow

__all__ = ["DownloadRow", "ModelManagerPage"]
