"""Models from the Hugging Face Hub: list, download with resume, verify, install; and installed models.

No Qt here: the window runs these in a worker thread, the terminal directly.
"""

from localmind.core.hub.settings import ask_only_for_what_the_user_asked

ask_only_for_what_the_user_asked()  # before huggingface_hub is imported below

# ruff: noqa: E402

from localmind.core.hub.control import TransferControl
from localmind.core.hub.download import (
    DownloadJob,
    DownloadRequest,
    UnfinishedDownload,
    choose_folder,
    default_model_id,
    discard_unfinished,
    list_unfinished,
    request_for_catalog,
)
from localmind.core.hub.errors import (
    AlreadyInstalledError,
    AuthRequiredError,
    DownloadStopped,
    HubError,
    NotEnoughDiskError,
)
from localmind.core.hub.importer import import_folder, import_zip
from localmind.core.hub.installed import (
    InstalledModel,
    VerifyReport,
    empty_trash,
    get_installed,
    list_installed,
    remove_model,
    require_installed,
    verify_model,
)
from localmind.core.hub.listing import RemoteFile, RepoListing, list_repo
from localmind.core.hub.manifest import MANIFEST_NAME, Manifest
from localmind.core.hub.progress import DownloadProgress
from localmind.core.hub.settings import HubSettings, hub_endpoint

__all__ = [
    "MANIFEST_NAME",
    "AlreadyInstalledError",
    "AuthRequiredError",
    "DownloadJob",
    "DownloadProgress",
    "DownloadRequest",
    "DownloadStopped",
    "HubError",
    "HubSettings",
    "InstalledModel",
    "Manifest",
    "NotEnoughDiskError",
    "RemoteFile",
    "RepoListing",
    "TransferControl",
    "UnfinishedDownload",
    "VerifyReport",
    "choose_folder",
    "default_model_id",
    "discard_unfinished",
    "empty_trash",
    "get_installed",
    "hub_endpoint",
    "import_folder",
    "import_zip",
    "list_installed",
    "list_repo",
    "list_unfinished",
    "remove_model",
    "request_for_catalog",
    "require_installed",
    "verify_model",
]
