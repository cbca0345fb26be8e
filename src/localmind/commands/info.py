"""``localmind info``: versions, the devices tried and why any failed, and LocalMind's folders."""

from __future__ import annotations

import argparse
import json
import platform
import sys
from typing import Any

from localmind import APP_NAME, __version__, paths


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("info", help="versions, devices and folders")
    p.add_argument("--model", metavar="DIR", help="also try to load this model on each device")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def collect(model: str | None = None) -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    def pkg(name: str) -> str | None:
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    from localmind.engine.devices import DEVICE_LABELS, PROVIDERS, candidate_devices, physical_cores

    report: dict[str, Any] = {
        "localmind": __version__,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "onnxruntime_genai": next(
            (
                f"{v} ({n})"
                for n in ("onnxruntime-genai", "onnxruntime-genai-cuda", "onnxruntime-genai-winml")
                if (v := pkg(n))
            ),
            None,
        ),
        "onnxruntime": pkg("onnxruntime") or pkg("onnxruntime-gpu") or pkg("onnxruntime-directml"),
        "physical_cores": physical_cores(),
        "data_dir": str(paths.data_dir()),
        "models_dir": str(paths.models_dir()),
        "database": str(paths.database_path()),
        "devices": [],
    }
    if model:
        import onnxruntime_genai as og

        from localmind.engine import winml
        from localmind.engine.devices import configure_and_load
        from localmind.engine.validate import validate_model_folder

        # Windows ML's providers, as the engine registers them at start (inert off Windows).
        report["winml"] = winml.ensure_registered(og).as_dict()

        folder = validate_model_folder(model)
        for device in [*candidate_devices("auto"), *(d for d in PROVIDERS if d not in candidate_devices("auto"))]:
            try:
                configure_and_load(str(folder.path), PROVIDERS[device], {"search": {"max_length": 64}})
                report["devices"].append({"device": device, "label": DEVICE_LABELS[device], "ok": True})
            except Exception as exc:
                reason = str(exc).strip().splitlines()[0][:240] if str(exc).strip() else type(exc).__name__
                report["devices"].append(
                    {"device": device, "label": DEVICE_LABELS[device], "ok": False, "reason": reason}
                )
    else:
        report["devices"] = [
            {"device": d, "label": DEVICE_LABELS[d], "tried_in_auto": True} for d in candidate_devices("auto")
        ]
    return report


def run(args: argparse.Namespace) -> int:
    report = collect(args.model)
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    print(f"{APP_NAME} {report['localmind']} (Python {report['python']}, {report['platform']})")
    print(f"onnxruntime-genai {report['onnxruntime_genai']}, ONNX Runtime {report['onnxruntime']}")
    print(f"CPU threads used by default: {report['physical_cores']} (physical cores)")
    print(f"Data folder:   {report['data_dir']}")
    print(f"Models folder: {report['models_dir']}")
    print(f"Conversations: {report['database']}")
    if args.model:
        print(f"Devices (loading {args.model}):")
        for d in report["devices"]:
            status = "works" if d["ok"] else f"not available: {d['reason']}"
            print(f"  {d['device']:7} {d['label']}: {status}")
        winml = report.get("winml") or {}
        if winml.get("active"):
            print("Windows ML providers registered: " + (", ".join(winml["registered"]) or "none"))
            if winml["needs_download"]:
                print(
                    "  available after a download from Microsoft (allowed by"
                    ' "accelerator_downloads": true in settings.json): ' + ", ".join(winml["needs_download"])
                )
            for name, why in winml["failed"].items():
                print(f"  {name}: {why}")
            if winml["reason"]:
                print(f"  {winml['reason']}")
    else:
        print("Devices tried, in order, for --device auto: " + ", ".join(d["device"] for d in report["devices"]))
        print("  (pass --model DIR to try loading a model on each and see why any fails)")
    return 0
