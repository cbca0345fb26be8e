"""Turn `localmind info --model DIR --json` into the release job's summary: which devices loaded, and why not.

    python -m localmind info --model build/tiny-model --json > info.json
    python packaging/devices_summary.py info.json >> "$GITHUB_STEP_SUMMARY"

Exits 1 when no device loaded the model at all (not even the CPU): the build cannot run a model.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def summary(info: dict[str, Any], title: str = "Devices") -> str:
    lines = [
        f"### {title}: onnxruntime-genai {info.get('onnxruntime_genai')}, {info.get('platform')}",
        "",
        "| device | loaded the test model | why not |",
        "|---|---|---|",
    ]
    for device in info.get("devices", []):
        ok = device.get("ok")
        reason = str(device.get("reason", "")).replace("|", "\\|")
        lines.append(f"| {device['device']} ({device['label']}) | {'yes' if ok else 'no'} | {reason} |")
    winml = info.get("winml")
    if winml is not None:
        if winml.get("active"):
            lines += [
                "",
                f"Windows ML providers registered: {', '.join(winml['registered']) or 'none'}",
                f"available only after a download: {', '.join(winml['needs_download']) or 'none'}",
            ]
            lines += [f"- {name} failed: {why}" for name, why in winml.get("failed", {}).items()]
            if winml.get("reason"):
                lines.append(f"- {winml['reason']}")
        else:
            lines += ["", f"Windows ML: not used ({winml.get('reason')})"]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    info = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    sys.stdout.write(summary(info, argv[2] if len(argv) > 2 else "Devices"))
    return 0 if any(d.get("ok") for d in info.get("devices", [])) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
