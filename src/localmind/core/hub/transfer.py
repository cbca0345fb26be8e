"""Fetch one file: our own ``.part`` file, Range resume, hashing while it streams.

huggingface_hub resumes only within one call and verifies no content hash, so
LocalMind resolves the file's URL through it (``get_hf_file_metadata``), then
streams with the client's own HTTP session into ``<name>.part``, asking for the
rest with ``Range`` after a dropped connection, a stall or a restart of the app.
The bytes are hashed as they arrive; a file becomes ``<name>`` only when its
hash is the one the Hub lists.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import logging
import os
import queue
import re
import shutil
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import httpx2
from huggingface_hub import constants as hf_constants
from huggingface_hub import errors as hf_errors
from huggingface_hub import get_hf_file_metadata, get_session, hf_hub_url
from huggingface_hub.utils import build_hf_headers  # type: ignore[attr-defined]  # public, re-exported lazily

from localmind.core.hub.control import TransferControl
from localmind.core.hub.errors import AuthRequiredError, DownloadStopped, HubError, HubUnreachableError, network_reason
from localmind.core.hub.hashing import Hasher, feed_file, new_hasher
from localmind.core.hub.listing import RETRYABLE_STATUS, RemoteFile, explain_hub_error, is_retryable, token_arg
from localmind.core.hub.settings import HubSettings
from localmind.errors import Phrase

log = logging.getLogger(__name__)

PART_SUFFIX = ".part"
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")

OpenPart = Callable[[Path], IO[bytes]]


def open_part_for_append(path: Path) -> IO[bytes]:
    return path.open("ab")


@dataclass(frozen=True)
class FileSource:
    """Where the files of one download come from: one repo at one commit."""

    repo: str
    commit: str
    endpoint: str
    token: str | None = None


class _PartState:
    """A part file and the hash of what it holds, kept in step as bytes are appended."""

    def __init__(self, path: Path, file: RemoteFile) -> None:
        self.path = path
        self.file = file
        self.size = 0
        self.hasher: Hasher = new_hasher(file.algorithm, file.size)
        self.resync()

    def resync(self) -> None:
        """Re-read the part when the disk disagrees with what was counted (a write that failed half way)."""
        on_disk = part_size(self.path)
        if on_disk != self.size:
            self.hasher = new_hasher(self.file.algorithm, self.file.size)
            if on_disk:
                feed_file(self.hasher, self.path, on_disk)
            self.size = on_disk

    def reset(self) -> None:
        with self.path.open("wb"):
            pass
        self.size = 0
        self.hasher = new_hasher(self.file.algorithm, self.file.size)


class _PartWriter:
    """Writes and hashes on its own thread, so the network thread only receives.

    File writes and hashlib release the GIL: on two cores, hashing then costs
    almost nothing next to receiving (see bench/download.py).
    """

    QUEUE_CHUNKS = 64  # of ~64 kB each: a few MB in flight at most

    def __init__(self, handle: IO[bytes], state: _PartState, on_bytes: Callable[[int], None]) -> None:
        self._handle = handle
        self._state = state
        self._on_bytes = on_bytes
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=self.QUEUE_CHUNKS)
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="localmind-part-writer", daemon=True)
        self._thread.start()

    def put(self, chunk: bytes) -> None:
        self._queue.put(chunk)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while (chunk := self._queue.get()) is not None:
            if self.error is not None:
                continue  # keep draining so the receiving thread never blocks on a full queue
            try:
                self._handle.write(chunk)
                self._state.hasher.update(chunk)
                self._state.size += len(chunk)
                self._on_bytes(len(chunk))
            except BaseException as exc:
                self.error = exc


class _Retry(Exception):  # an internal signal: never leaves this module
    def __init__(self, reason: str, *, progressed: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.progressed = progressed


def xet_usable(settings: HubSettings) -> bool:
    if settings.use_xet is False or hf_constants.HF_HUB_DISABLE_XET:
        return False
    return importlib.util.find_spec("hf_xet") is not None


def part_path(final_path: Path) -> Path:
    return final_path.with_name(final_path.name + PART_SUFFIX)


class FileFetcher:
    """Downloads files of one source; one instance per download job."""

    def __init__(
        self,
        source: FileSource,
        settings: HubSettings,
        control: TransferControl,
        *,
        on_bytes: Callable[[int], None],
        on_status: Callable[[str], None],
        open_part: OpenPart = open_part_for_append,
        scratch_dir: Path | None = None,
    ) -> None:
        self.source = source
        self.settings = settings
        self.control = control
        self.on_bytes = on_bytes
        self.on_status = on_status
        self.open_part = open_part
        self.scratch_dir = scratch_dir
        self._hub_origin = _origin(source.endpoint)

    # -- public ---------------------------------------------------------------------------------------------------
    def fetch(self, file: RemoteFile, final_path: Path) -> str:
        """Download ``file`` to ``final_path`` (resuming its ``.part``) and return its verified hash."""
        final_path.parent.mkdir(parents=True, exist_ok=True)
        part = part_path(final_path)
        for round_ in (1, 2):
            digest = self._download_to_part(file, part)
            if digest == file.expected_hash:
                part.replace(final_path)
                return digest
            # Corrupted in transit (or on disk): start this file over once, from zero.
            size = part.stat().st_size if part.exists() else 0
            part.unlink(missing_ok=True)
            self.on_bytes(-size)
            log.warning(
                "%s: %s mismatch (got %s, expected %s), round %d",
                file.path,
                file.algorithm,
                digest,
                file.expected_hash,
                round_,
            )
            if round_ == 1:
                self.on_status(Phrase("{file} arrived damaged; downloading it again", file=file.path))
        raise HubError.say(
            "{file} arrived damaged twice (its {algorithm} does not match what Hugging Face lists); "
            "nothing was installed.",
            "Try again later or on another network; if it keeps happening, the file on the Hub may be broken.",
            file=file.path,
            algorithm=file.algorithm,
        )

    # -- one full pass over a file ----------------------------------------------------------------------------------
    def _download_to_part(self, file: RemoteFile, part: Path) -> str:
        existing = part_size(part)
        if existing > file.size:
            part.unlink()
            self.on_bytes(-existing)
            existing = 0
        if not existing and self._use_xet(file):
            return self._fetch_with_xet(file, part)
        state = _PartState(part, file)
        failures = 0  # in a row without progress
        total_failures = 0
        while True:
            self.control.check()
            if state.size == file.size:
                return state.hasher.hexdigest()
            try:
                self._attempt(state)
                failures = 0
            except _Retry as retry:
                total_failures += 1
                failures = 0 if retry.progressed else failures + 1
                state.resync()
                if failures >= self.settings.max_attempts or total_failures >= self.settings.max_total_attempts:
                    raise HubUnreachableError.say(
                        "Downloading {file} failed {count} times ({reason}).",
                        "Check the internet connection and resume the download: the part already downloaded is kept.",
                        file=file.path,
                        count=total_failures,
                        reason=retry.reason,
                    ) from None
                delay = self.settings.backoff(failures + 1)
                self.on_status(Phrase("{reason}; retrying in {seconds} s", reason=retry.reason, seconds=f"{delay:.0f}"))
                log.info("%s: %s; retry in %.1f s (%d in a row)", file.path, retry.reason, delay, failures)
                self.control.sleep(delay)

    def _resolve(self, file: RemoteFile) -> tuple[str, dict[str, str]]:
        url = hf_hub_url(self.source.repo, file.path, revision=self.source.commit, endpoint=self.source.endpoint)
        try:
            meta = get_hf_file_metadata(
                url,
                token=token_arg(self.source.token),
                timeout=self.settings.connect_timeout_s + self.settings.stall_timeout_s,
                endpoint=self.source.endpoint,
            )
        except Exception as exc:
            if is_retryable(exc):
                raise _Retry(
                    Phrase("{reason} while asking for {file}", reason=network_reason(exc), file=file.path)
                ) from exc
            if isinstance(exc, hf_errors.RemoteEntryNotFoundError):
                raise HubError.say(
                    "{file} is no longer in {repo} at commit {commit}.",
                    "Start the download again to get the current files.",
                    file=file.path,
                    repo=self.source.repo,
                    commit=self.source.commit[:12],
                ) from exc
            if isinstance(exc, (hf_errors.HfHubHTTPError, httpx2.HTTPError, hf_errors.OfflineModeIsEnabled)):
                raise explain_hub_error(
                    exc, self.source.repo, self.source.commit, self.source.endpoint, had_token=bool(self.source.token)
                ) from exc
            raise
        if meta.size is not None and meta.size != file.size:
            raise HubError.say(
                "{file} changed on the Hub while downloading ({now} bytes now, {listed} listed).",
                "Start the download again.",
                file=file.path,
                now=meta.size,
                listed=file.size,
            )
        headers = build_hf_headers(token=token_arg(self.source.token))
        if _origin(meta.location) != self._hub_origin:
            # LFS files are served by a CDN on another origin: the token is for the Hub only.
            headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        headers["Accept-Encoding"] = "identity"
        return meta.location, headers

    def _attempt(self, state: _PartState) -> None:
        """One request: append what arrives to the part file, or raise ``_Retry``."""
        file = state.file
        location, headers = self._resolve(file)
        if state.size:
            headers["Range"] = f"bytes={state.size}-"
        timeout = httpx2.Timeout(
            connect=self.settings.connect_timeout_s,
            read=self.settings.stall_timeout_s,
            write=self.settings.stall_timeout_s,
            pool=self.settings.connect_timeout_s,
        )
        start = state.size
        try:
            with get_session().stream("GET", location, headers=headers, timeout=timeout) as response:
                unregister = self.control.register_closer(lambda: _interrupt(response))
                try:
                    if self._check_response(response, state):
                        self._stream(response, state)
                finally:
                    unregister()
        except (httpx2.TransportError, httpx2.StreamError) as exc:
            self.control.check()  # a stop closes the stream: that is not a network failure
            if isinstance(exc, httpx2.ReadTimeout):
                reason = Phrase("no data for {seconds} s", seconds=f"{self.settings.stall_timeout_s:g}")
            else:
                reason = network_reason(exc)
            raise _Retry(Phrase("connection problem ({reason})", reason=reason), progressed=state.size > start) from exc
        if state.size < file.size:
            raise _Retry(Phrase("the connection ended early"), progressed=state.size > start)

    def _check_response(self, response: Any, state: _PartState) -> bool:
        """Whether the body should be read (False: nothing left to read); raises for statuses that stop here."""
        file = state.file
        status = response.status_code
        if status == 416 and state.size >= file.size:
            return False
        if status == 416 or (status == 200 and state.size):
            # The server ignored the Range (or does not have what the part holds): start this file over.
            log.info("%s: server answered %d to a Range request; restarting the file", file.path, status)
            self.on_status(Phrase("the server cannot resume {file}; restarting it", file=file.path))
            self.on_bytes(-state.size)
            state.reset()
            if status == 416:
                raise _Retry(Phrase("the server refused to resume"))
            return True
        if status == 206:
            match = _CONTENT_RANGE.match(response.headers.get("Content-Range", ""))
            if not match or int(match.group(1)) != state.size:
                raise _Retry(Phrase("the server sent the wrong part of the file"))
            return True
        if status == 200:
            return True
        if status in (401, 403):
            if _origin(str(response.request.url)) != self._hub_origin:
                # A CDN link can expire during a long pause: resolving the file again gives a fresh one.
                raise _Retry(Phrase("the download link expired (HTTP {status})", status=status))
            raise AuthRequiredError(self.source.repo, had_token=bool(self.source.token))
        if status in RETRYABLE_STATUS:
            raise _Retry(Phrase("the server answered HTTP {status}", status=status))
        if status == 404:
            raise HubError.say(
                "{file} was not found on the server (HTTP 404).", "Start the download again later.", file=file.path
            )
        raise HubError.say(
            "The server answered HTTP {status} for {file}.", "Try again later.", status=status, file=file.path
        )

    def _stream(self, response: Any, state: _PartState) -> None:
        file = state.file
        received = state.size
        try:
            with self.open_part(state.path) as handle:
                writer = _PartWriter(handle, state, self.on_bytes)
                try:
                    # Chunks as they arrive: a fixed chunk size would buffer bytes that a dropped connection then loses.
                    for chunk in response.iter_raw():
                        if received + len(chunk) > file.size:
                            # More than the Hub listed: damaged. Keep the listed length so the hash check decides.
                            chunk = chunk[: file.size - received]
                        writer.put(chunk)
                        received += len(chunk)
                        if self.control.stopped or received >= file.size or writer.error is not None:
                            break
                finally:
                    # Every byte received is on disk before anything else happens: a retry resumes right after it.
                    writer.close()
                if writer.error is not None:
                    raise writer.error
                if self.settings.fsync:
                    handle.flush()
                    os.fsync(handle.fileno())
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
                raise HubError.say(
                    "The disk is full: {file} could not be written to {folder}.",
                    "Free some disk space and resume the download; what was downloaded so far is kept.",
                    file=file.path,
                    folder=state.path.parent,
                ) from exc
            raise HubError.say(
                "Cannot write {path}: {reason}.",
                "Check the disk and the folder's permissions.",
                path=state.path,
                reason=exc.strerror or exc,
            ) from exc
        self.control.check()

    # -- Xet -------------------------------------------------------------------------------------------------------
    def _use_xet(self, file: RemoteFile) -> bool:
        return bool(file.xet_hash) and xet_usable(self.settings)

    def _fetch_with_xet(self, file: RemoteFile, part: Path) -> str:
        """The Hub's Xet path (deduplicated chunks): faster, but it cannot resume our ``.part``; used for fresh files."""
        from huggingface_hub import hf_hub_download

        from localmind.core.hub.hashing import hash_file
        from localmind.core.hub.xet import progress_class

        scratch = self.scratch_dir or part.parent / ".xet"
        done = 0

        def count(n: int) -> None:
            nonlocal done
            done += n
            self.on_bytes(n)

        try:
            local = hf_hub_download(
                self.source.repo,
                file.path,
                revision=self.source.commit,
                local_dir=scratch,
                endpoint=self.source.endpoint,
                token=token_arg(self.source.token),
                tqdm_class=progress_class(count, self.control),
            )
        except DownloadStopped:
            raise
        except Exception as exc:
            self.control.check()
            self.on_bytes(-done)
            raise explain_hub_error(
                exc, self.source.repo, self.source.commit, self.source.endpoint, had_token=bool(self.source.token)
            ) from exc
        Path(local).replace(part)
        shutil.rmtree(scratch, ignore_errors=True)
        self.on_bytes(file.size - done)
        return hash_file(part, file.algorithm, check=self.control.check)


def _interrupt(response: Any) -> None:
    """Wake a read blocked on a silent server: closing a response from another thread does not, shutting its socket does."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        return
    response.close()


def part_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port
