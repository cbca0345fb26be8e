"""The download's progress reports: a status (a retry, a damaged file) is not cleared before it can be seen."""

from __future__ import annotations

from localmind.core.hub.progress import STATUS_HOLD_S, DownloadProgress, ProgressTracker


def test_a_status_stays_a_while_after_bytes_flow_again_then_goes() -> None:
    """The window shows only the latest report (it skips those that come while it is busy): a status cleared by the
    next chunk of bytes was skipped unseen in one full run ("arrived damaged; downloading it again" never shown)."""
    now = [100.0]
    reports: list[DownloadProgress] = []
    tracker = ProgressTracker("m", reports.append, interval_s=0.0, clock=lambda: now[0])
    tracker.start(total=1000, already=0, files_total=2, files_done=0)
    tracker.set_status("weights.bin arrived damaged; downloading it again")
    now[0] += 0.5
    tracker.add(100)
    assert reports[-1].status == "weights.bin arrived damaged; downloading it again"
    now[0] += STATUS_HOLD_S
    tracker.add(100)
    assert reports[-1].status == "" and reports[-1].done_bytes == 200
