"""Nothing leaves unless the user asks: a download session sends the Hub only the requests for what was asked."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.helpers.fake_hub import FakeHub
from tests.helpers.hub_env import MODEL_ID, REPO

# What a download of REPO needs: its revision and file list, the files' metadata and bytes (the CDN serves LFS).
ASKED = [
    re.compile(rf"^/api/models/{re.escape(REPO)}(/revision/[^/]+|/tree/[^?]*)?(\?.*)?$"),
    re.compile(rf"^/{re.escape(REPO)}/resolve/[^/]+/.+$"),
]

_SESSION = """
import sys
from localmind import paths
from localmind.core.hub import DownloadJob, DownloadRequest, HubSettings
paths.set_data_dir(sys.argv[1])
settings = HubSettings(endpoint=sys.argv[2], fsync=False, backoff_base_s=0.01, backoff_max_s=0.05)
DownloadJob(DownloadRequest(sys.argv[3], model_id=sys.argv[4], name="Tiny"), settings=settings).run()
print("installed")
"""


def test_a_download_session_asks_the_hub_for_nothing_else(hub: FakeHub, tmp_path: Path) -> None:
    """huggingface_hub's own agent detection fetched /api/agent-harnesses in every fresh session (no cache)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "DISABLE_TELEMETRY"))}
    env.update(HF_ENDPOINT=hub.endpoint, HF_HOME=str(tmp_path / "hf-home"), HF_HUB_OFFLINE="0")
    done = subprocess.run(
        [sys.executable, "-c", _SESSION, str(tmp_path / "data"), hub.endpoint, REPO, MODEL_ID],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0 and "installed" in done.stdout, done.stderr
    hub_paths = [r.path for r in hub.requests(origin="hub")]
    assert any("/resolve/" in p for p in hub_paths)
    unasked = [p for p in hub_paths if not any(pattern.match(p) for pattern in ASKED)]
    assert unasked == [], unasked
    assert not (tmp_path / "hf-home" / ".agent_harnesses.json").exists()
