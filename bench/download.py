"""Download throughput and the cost of verification, against the fake hub on loopback. Prints JSON.

    python bench/download.py [--mb 256] [--runs 5]

* ``raw``: the same bytes copied with a bare HTTP GET into a file (no hashing, no resume bookkeeping, no fsync);
* ``fetch``: LocalMind's file fetcher as it ships (``.part`` file, Range bookkeeping, hashing while downloading,
  fsync of each finished file — the production ``HubSettings``);
* ``fetch_unhashed``: the same with hashing switched off, to isolate what verification adds;
* ``fetch_no_fsync``: the same without the fsync, to isolate what durability costs;
* ``job``: a whole model download as it ships (listing, HEADs, every file, manifest, install).

The contenders run in a different order each run (rotated): a fixed order would measure the page cache's drift.

The fake hub runs in its own process so server and client do not share a GIL.
Goals (issue 4): fetch >= 0.9x raw; verification adds <= 10%.

Measured 2026-11-30 on the 2-core dev VM (load from other jobs ~2.5), 256 MB file, medians of 5-7 runs:

    server limit   raw MB/s   fetch MB/s   fetch/raw   job/raw   verification adds
    none (~660)      ~665       410-485    0.62-0.74   0.48-0.60       20-33 %
    300 MB/s          299         299        0.998      0.976           0.0 %
    100 MB/s          99.8        99.8       0.999      0.988          -0.1 %

(Those runs had fsync off. 2026-12-01, production fsync on, under load average 13-16: unthrottled 64 MB x7:
fetch/raw 0.63, hashing +24 %, fsync +42 %; 300 MB/s 128 MB x5: fetch/raw 0.69, fsync -5 %, hashing +112 % - noise.)

Unthrottled, the loopback server takes one of the two cores and the client is CPU-bound on
the other, so sha256 (~1.7 GB/s here) cannot overlap with receiving; with any real link
(or a spare core) hashing on the writer thread costs nothing measurable.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["HF_HUB_OFFLINE"] = "0"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

REPO = "localmind-tests/tiny-onnx"
WEIGHTS = "cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4/weights.bin"


class _NullHasher:
    expected = ""

    def update(self, data: bytes, /) -> None:
        pass

    def hexdigest(self) -> str:
        return _NullHasher.expected


def start_server(model_dir: Path, mb: int, throttle_mbps: int = 0) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "tests.helpers.fake_hub", str(model_dir), "--repo", REPO, "--pad-mb", str(mb)]
    if throttle_mbps:
        command += ["--throttle-kbps", str(throttle_mbps * 1000)]
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    endpoint = proc.stdout.readline().strip()
    if not endpoint.startswith("http"):
        raise SystemExit("the fake hub did not start")
    return proc, endpoint


def raw_copy(url: str, target: Path) -> float:
    from huggingface_hub import get_session

    started = time.perf_counter()
    with (
        get_session().stream("GET", url, headers={"Accept-Encoding": "identity"}) as response,
        target.open("wb") as out,
    ):
        for chunk in response.iter_raw():
            out.write(chunk)
    return time.perf_counter() - started


def fetch(endpoint: str, commit: str, file: Any, target: Path, *, hashed: bool, fsync: bool = True) -> float:
    from localmind.core.hub import HubSettings, TransferControl
    from localmind.core.hub import transfer as transfer_module
    from localmind.core.hub.transfer import FileFetcher, FileSource

    original = transfer_module.new_hasher
    if not hashed:
        _NullHasher.expected = file.expected_hash
        transfer_module.new_hasher = lambda algorithm, size: _NullHasher()  # type: ignore[assignment]
    try:
        fetcher = FileFetcher(
            FileSource(REPO, commit, endpoint),
            HubSettings(endpoint=endpoint, fsync=fsync),
            TransferControl(),
            on_bytes=lambda n: None,
            on_status=lambda s: None,
        )
        started = time.perf_counter()
        fetcher.fetch(file, target)
        return time.perf_counter() - started
    finally:
        transfer_module.new_hasher = original


def whole_job(endpoint: str, data_dir: Path) -> float:
    from localmind import paths
    from localmind.core.hub import DownloadJob, DownloadRequest, HubSettings, remove_model

    paths.set_data_dir(data_dir)
    started = time.perf_counter()
    DownloadJob(DownloadRequest(REPO, model_id="bench"), settings=HubSettings(endpoint=endpoint)).run()
    elapsed = time.perf_counter() - started
    remove_model("bench")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=256, help="size of the file to download (MB)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--throttle-mbps", type=int, default=0, help="limit the server to this many MB/s (a real network)"
    )
    args = parser.parse_args()

    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from tests.helpers.tiny_model import build_tiny_model

    from localmind.core.hub import HubSettings, list_repo

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        model_dir = build_tiny_model(tmp / "tiny")
        server, endpoint = start_server(model_dir, args.mb, args.throttle_mbps)
        try:
            listing = list_repo(REPO, settings=HubSettings(endpoint=endpoint))
            file = next(f for f in listing.files if f.path == WEIGHTS)
            cdn_url = get_hf_file_metadata(
                hf_hub_url(REPO, WEIGHTS, revision=listing.commit, endpoint=endpoint), token=False
            ).location
            contenders = {
                "raw": lambda target: raw_copy(cdn_url, target),
                "fetch": lambda target: fetch(endpoint, listing.commit, file, target, hashed=True),
                "fetch_unhashed": lambda target: fetch(endpoint, listing.commit, file, target, hashed=False),
                "fetch_no_fsync": lambda target: fetch(
                    endpoint, listing.commit, file, target, hashed=True, fsync=False
                ),
            }
            results: dict[str, list[float]] = {name: [] for name in [*contenders, "job"]}
            names = list(contenders)
            for run in range(args.runs):
                for name in names[run % len(names) :] + names[: run % len(names)]:
                    target = tmp / f"out-{run}-{name}.bin"
                    results[name].append(contenders[name](target))
                    target.unlink()
                results["job"].append(whole_job(endpoint, tmp / f"data-{run}"))
        finally:
            server.terminate()
            server.wait(10)
    size = file.size
    median = {k: statistics.median(v) for k, v in results.items()}
    mbps = {k: round(size / t / 1e6, 1) for k, t in median.items()}
    report = {
        "file_mb": round(size / 1e6, 1),
        "server_limit_mb_s": args.throttle_mbps or None,
        "runs": args.runs,
        "cpus": os.cpu_count(),
        "median_s": {k: round(v, 3) for k, v in median.items()},
        "throughput_mb_s": mbps,
        "fetch_vs_raw": round(median["raw"] / median["fetch"], 3),
        "job_vs_raw": round(median["raw"] / median["job"], 3),
        "verification_overhead": round(median["fetch"] / median["fetch_unhashed"] - 1, 3),
        "fsync_overhead": round(median["fetch"] / median["fetch_no_fsync"] - 1, 3),
        "goals": {"fetch_vs_raw": ">= 0.9", "verification_overhead": "<= 0.10"},
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
