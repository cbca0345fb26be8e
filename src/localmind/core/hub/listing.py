"""List a repo's files through huggingface_hub and find the model folders in it."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx2
from huggingface_hub import HfApi
from huggingface_hub import errors as hf_errors
from huggingface_hub.hf_api import RepoFile

from localmind.core.hub.control import TransferControl
from localmind.core.hub.errors import AuthRequiredError, HubError, HubUnreachableError, network_reason
from localmind.core.hub.hashing import GIT_SHA1, SHA256
from localmind.core.hub.settings import HubSettings

CONFIG_NAME = "genai_config.json"
_REPO_ID = re.compile(r"^(?:[A-Za-z0-9][\w.-]{0,95}/)?[A-Za-z0-9][\w.-]{0,95}$")
T = TypeVar("T")

# Errors worth another try: the network, not the request.
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RemoteFile:
    path: str
    size: int
    blob_id: str  # git blob sha1 (for an LFS file: of its pointer)
    sha256: str | None = None  # LFS files only
    xet_hash: str | None = None

    @property
    def algorithm(self) -> str:
        return SHA256 if self.sha256 else GIT_SHA1

    @property
    def expected_hash(self) -> str:
        return self.sha256 or self.blob_id


@dataclass(frozen=True)
class RepoListing:
    repo: str
    revision: str  # as asked for ("main", a tag, a commit)
    commit: str  # what it resolved to: every file is fetched at this commit
    files: tuple[RemoteFile, ...]
    endpoint: str

    def model_folders(self) -> list[str]:
        """Folders holding a ``genai_config.json`` ("" is the repo root), shallowest first."""
        folders = {posixpath.dirname(f.path) for f in self.files if posixpath.basename(f.path) == CONFIG_NAME}
        return sorted(folders, key=lambda f: (f.count("/") if f else -1, f))

    def files_in(self, folder: str) -> list[RemoteFile]:
        folder = folder.strip("/")
        if not folder:
            return list(self.files)
        prefix = folder + "/"
        return [f for f in self.files if f.path.startswith(prefix)]

    def size_of(self, folder: str) -> int:
        return sum(f.size for f in self.files_in(folder))


def check_repo_id(repo: str) -> str:
    repo = repo.strip().strip("/")
    if repo.startswith(("https://huggingface.co/", "http://huggingface.co/")):
        repo = repo.split("huggingface.co/", 1)[1]
    if not _REPO_ID.match(repo) or ".." in repo:
        raise HubError.say(
            "{repo} is not a Hugging Face model id.",
            "Use the form owner/model, e.g. microsoft/Phi-3.5-mini-instruct-onnx.",
            repo=repr(repo),
        )
    return repo


def token_arg(token: str | None) -> str | bool:
    # False stops huggingface_hub from picking up a token saved by other tools: LocalMind's token lives in the keyring.
    return token if token else False


def explain_hub_error(exc: BaseException, repo: str, revision: str, endpoint: str, *, had_token: bool) -> HubError:
    """Turn whatever huggingface_hub or the network raised into advice."""
    if isinstance(exc, HubError):
        return exc
    if isinstance(exc, hf_errors.OfflineModeIsEnabled):
        return HubError.say(
            "Downloads are switched off: HF_HUB_OFFLINE is set.", "Unset HF_HUB_OFFLINE to download models."
        )
    if isinstance(exc, hf_errors.GatedRepoError):
        return AuthRequiredError(repo, had_token=had_token)
    if isinstance(exc, hf_errors.RevisionNotFoundError):
        return HubError.say(
            "{repo} has no branch, tag or commit named {revision}.",
            "Check the revision, or leave it out to get the latest.",
            repo=repo,
            revision=repr(revision),
        )
    if isinstance(exc, hf_errors.RepositoryNotFoundError):
        status = exc.response.status_code
        if status in (401, 403) and had_token:
            return AuthRequiredError(repo, had_token=True)
        return HubError.say(
            "{repo} was not found on Hugging Face (or it is private).",
            "Check the spelling (owner/model). For a private or gated model, enter a Hugging Face access token in "
            "Settings.",
            repo=repo,
        )
    if isinstance(exc, hf_errors.HfHubHTTPError):
        status = exc.response.status_code
        if status in (401, 403):
            return AuthRequiredError(repo, had_token=had_token)
        if status == 429:
            return HubError.say(
                "Hugging Face is limiting requests right now (HTTP 429).", "Wait a few minutes and try again."
            )
        if status >= 500:
            return HubError.say(
                "Hugging Face is having trouble (HTTP {status}).", "Try again in a few minutes.", status=status
            )
        return HubError.say(
            "Hugging Face answered HTTP {status} for {repo}.",
            "Try again later; if it persists, check the model id.",
            status=status,
            repo=repo,
        )
    if isinstance(exc, httpx2.TransportError):
        where = "Hugging Face" if endpoint.rstrip("/") == "https://huggingface.co" else endpoint
        return HubUnreachableError.say(
            "Cannot reach {where}: {reason}.",
            "Check the internet connection (and proxy settings), then try again.",
            where=where,
            reason=network_reason(exc),
        )
    return HubError.say(
        "Talking to {endpoint} failed: {reason}.",
        "Try again; if it persists, report a bug.",
        endpoint=endpoint,
        reason=exc,
    )


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, (httpx2.TransportError, httpx2.StreamError)):
        return True
    if isinstance(exc, hf_errors.HfHubHTTPError) and not isinstance(exc, hf_errors.RepositoryNotFoundError):
        return exc.response.status_code in RETRYABLE_STATUS
    return False


def with_retries(
    action: Callable[[], T],
    settings: HubSettings,
    control: TransferControl | None = None,
    on_retry: Callable[[str], None] | None = None,
) -> T:
    """Run ``action``, retrying network failures with backoff; the last failure propagates."""
    attempt = 1
    while True:
        if control is not None:
            control.check()
        try:
            return action()
        except Exception as exc:
            if not is_retryable(exc) or attempt >= settings.max_attempts:
                raise
            delay = settings.backoff(attempt)
            if on_retry is not None:
                on_retry(
                    f"{network_reason(exc)}; retrying in {delay:.0f} s (attempt {attempt + 1} of {settings.max_attempts})"
                )
            if control is not None:
                control.sleep(delay)
            else:
                import time

                time.sleep(delay)
            attempt += 1


def _to_remote(entry: Any) -> RemoteFile | None:
    if not isinstance(entry, RepoFile):
        return None
    return RemoteFile(
        path=entry.path,
        size=int(entry.size),
        blob_id=entry.blob_id,
        sha256=entry.lfs.sha256 if entry.lfs is not None else None,
        xet_hash=entry.xet_hash,
    )


def list_repo(
    repo: str,
    revision: str = "main",
    *,
    token: str | None = None,
    settings: HubSettings | None = None,
    control: TransferControl | None = None,
    on_retry: Callable[[str], None] | None = None,
) -> RepoListing:
    """Resolve ``revision`` to a commit and list every file at that commit (with sizes and hashes)."""
    settings = settings or HubSettings()
    repo = check_repo_id(repo)
    endpoint = settings.resolved_endpoint()
    api = HfApi(endpoint=endpoint)
    tok = token_arg(token)

    def fetch() -> RepoListing:
        info = api.model_info(
            repo, revision=revision, token=tok, timeout=settings.connect_timeout_s + settings.stall_timeout_s
        )
        commit = info.sha or revision
        files = [
            f
            for f in (_to_remote(e) for e in api.list_repo_tree(repo, recursive=True, revision=commit, token=tok))
            if f
        ]
        return RepoListing(repo=repo, revision=revision, commit=commit, files=tuple(files), endpoint=endpoint)

    try:
        return with_retries(fetch, settings, control, on_retry)
    except (hf_errors.HfHubHTTPError, hf_errors.OfflineModeIsEnabled, httpx2.HTTPError) as exc:
        raise explain_hub_error(exc, repo, revision, endpoint, had_token=bool(token)) from exc
