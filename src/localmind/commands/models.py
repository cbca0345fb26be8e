"""``localmind models``: list, download, verify, remove and import models from the terminal.

Downloads show progress on stderr and can be stopped with Ctrl+C; running the
same command again resumes where it stopped. Failures exit non-zero with one
line saying what happened and what to do.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from localmind.errors import UserFacingError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("models", help="list, download, verify, remove and import models")
    actions = p.add_subparsers(dest="models_command", metavar="ACTION", required=True)

    listing = actions.add_parser("list", help="installed models, unfinished downloads and the catalog")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=run_list)

    download = actions.add_parser(
        "download", help="download a catalog model or any Hugging Face repo (resumes when rerun)"
    )
    download.add_argument(
        "model", metavar="CATALOG_ID|REPO", help="a catalog id (see `models list`) or owner/name on Hugging Face"
    )
    download.add_argument(
        "--include", metavar="FOLDER", help="the repo folder that holds the model (when it has several)"
    )
    download.add_argument("--revision", metavar="REV", help="branch, tag or commit (default: the latest)")
    download.add_argument(
        "--variant",
        metavar="NAME",
        help="onnx-community repos: which variant (q4, int8, fp16, fp32...; default: the best for the device)",
    )
    download.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda", "dml"),
        default="auto",
        help="which device's files to get (default: the one the engine will use, as `localmind info` shows)",
    )
    download.add_argument("--id", dest="model_id", metavar="ID", help="install under this id")
    download.add_argument(
        "--token-stdin", action="store_true", help="read a Hugging Face token from stdin for this download only"
    )
    download.set_defaults(handler=run_download)

    verify = actions.add_parser("verify", help="check every file of an installed model against its hash")
    verify.add_argument("model_id", metavar="ID")
    verify.set_defaults(handler=run_verify)

    remove = actions.add_parser("remove", help="delete an installed model or an unfinished download")
    remove.add_argument("model_id", metavar="ID")
    remove.set_defaults(handler=run_remove)

    imp = actions.add_parser("import", help="install a model folder or a .zip of one")
    imp.add_argument("path", metavar="FOLDER|ZIP")
    imp.add_argument("--reference", action="store_true", help="use the folder where it is instead of copying it")
    imp.add_argument("--id", dest="model_id", metavar="ID", help="install under this id")
    imp.add_argument(
        "--variant", metavar="NAME", help="ONNX exports with several variants (q4, fp16, ...): import this one"
    )
    imp.set_defaults(handler=run_import)

    search = actions.add_parser(
        "search", help="search Hugging Face for ONNX chat models; says which run here (needs the internet)"
    )
    search.add_argument("text", metavar="TEXT", help='e.g. "smollm2" or "qwen3"')
    search.add_argument("--limit", type=int, default=20, metavar="N", help="how many results to check (default 20)")
    search.add_argument(
        "--device", choices=("auto", "cpu", "cuda", "dml"), default="auto", help="size the download for this device"
    )
    search.add_argument("--json", action="store_true", help="print JSON")
    search.set_defaults(handler=run_search)

    login = actions.add_parser(
        "login", help="store a Hugging Face access token (for gated or private models) in the system keyring"
    )
    login.set_defaults(handler=run_login)
    logout = actions.add_parser("logout", help="forget the Hugging Face access token")
    logout.set_defaults(handler=run_logout)


def human_bytes(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"  # pragma: no cover - the loop returns


def human_duration(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


# -- list ------------------------------------------------------------------------------------------------------------
def run_list(args: argparse.Namespace) -> int:
    from localmind.core.catalog import fit_hint, load_catalog, machine_info, recommend, tokens_per_s
    from localmind.core.hub import list_installed, list_unfinished

    installed = list_installed()
    unfinished = list_unfinished()
    catalog = load_catalog()
    machine = machine_info()
    pick = recommend(catalog, machine)
    if args.json:
        data = {
            "installed": [
                {
                    "id": m.id,
                    "name": m.name,
                    "path": str(m.model_path),
                    "size": m.size_on_disk,
                    "ok": m.ok,
                    "problem": m.problem,
                    "source": m.manifest.describe_source(),
                    "kind": m.kind,
                }
                for m in installed
            ],
            "unfinished": [
                {"id": u.model_id, "repo": u.repo, "done": u.done_bytes, "total": u.total_bytes} for u in unfinished
            ],
            "catalog": [
                {
                    "id": e.id,
                    "name": e.name,
                    "repo": e.repo,
                    "fit": fit_hint(e, machine).fit.value,
                    "tokens_per_s_estimate": round(speed, 1) if (speed := tokens_per_s(e, machine)) else None,
                    "recommended": pick is not None and e.id == pick.id,
                    "kind": e.kind,
                }
                for e in catalog
            ],
        }
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    print("Installed models:")
    if not installed:
        print("  (none yet: download one below, or `localmind models import FOLDER`)")
    for m in installed:
        state = "ok" if m.ok else f"DAMAGED: {m.problem} (verify, or remove and download again)"
        if m.kind == "embedding":
            state += " (embedding model: `localmind docs` searches by meaning with it)"
        size = human_bytes(m.size_on_disk) if m.size_on_disk else "in place"
        print(f"  {m.id:34} {size:>9}  {state}")
        print(f"  {'':34} {m.manifest.describe_source()}")
    if unfinished:
        print("Unfinished downloads (run the same download again to resume, or `models remove ID`):")
        for u in unfinished:
            share = f"{100 * u.done_bytes / u.total_bytes:.0f}%" if u.total_bytes else "?"
            print(f"  {u.model_id:34} {share:>5} of {human_bytes(u.total_bytes)}  {u.repo}")
    ram = human_bytes(machine.total_ram_bytes) if machine.total_ram_bytes else "unknown"
    disk = human_bytes(machine.free_disk_bytes) if machine.free_disk_bytes is not None else "unknown"
    print(f"Catalog (this computer: {ram} memory, {disk} free disk):")
    for e in catalog:
        mark = "*" if pick is not None and e.id == pick.id else " "
        size = human_bytes(e.variant_for("cpu").download_bytes)
        speed = tokens_per_s(e, machine)
        pace = f"; about {speed:.0f} tokens/s here" if speed else ""
        pace += "; embedding model for `localmind docs`, not a chat model" if e.kind == "embedding" else ""
        print(f" {mark}{e.id:34} {size:>9}  {e.parameters:>5}  {fit_hint(e, machine).describe()}{pace}")
    if pick is not None:
        print(f"* recommended to start with: localmind models download {pick.id}")
    return 0


# -- download --------------------------------------------------------------------------------------------------------
class TerminalProgress:
    """One updating line on a terminal; a line every few seconds (and on every status) when piped."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self._last = 0.0
        self._status = ""
        self._width = 0

    def __call__(self, p: Any) -> None:
        if p.status and p.status != self._status and p.phase != "preparing":
            self._line(f"  {p.status}", final=True)
        if p.phase == "preparing":
            # One line that updates: the graph rewrite reports many small steps.
            self._status = p.status
            self._line(f"{p.model_id}: {p.status or 'preparing'}", final=not self.tty)
            return
        self._status = p.status
        if p.phase == "listing":
            return
        now = time.monotonic()
        if p.phase == "downloading" and not self.tty and now - self._last < 2.0:
            return
        if self.tty and now - self._last < 0.2 and p.phase == "downloading":
            return
        self._last = now
        percent = 100 * p.fraction
        text = (
            f"{p.model_id}: {percent:5.1f}% {human_bytes(p.done_bytes)} of {human_bytes(p.total_bytes)}"
            f"  {human_bytes(p.speed_bps)}/s  ETA {human_duration(p.eta_s)}  {p.current_file}"
        )
        if p.phase in ("installing", "done"):
            text = f"{p.model_id}: {p.phase} ({human_bytes(p.total_bytes)})"
        self._line(text, final=not self.tty or p.phase == "done")

    def _line(self, text: str, final: bool) -> None:
        if self.tty:
            pad = max(0, self._width - len(text))
            self.out.write("\r" + text + " " * pad + ("\n" if final else ""))
            self._width = 0 if final else len(text)
        else:
            self.out.write(text + "\n")
        self.out.flush()


def _device(args: argparse.Namespace) -> str:
    from localmind.core.hub.device import download_device

    return download_device(args.device)


def _request(args: argparse.Namespace) -> Any:
    from dataclasses import replace

    from localmind.core.catalog import find_entry, load_catalog
    from localmind.core.hub import DownloadRequest, request_for_catalog

    device = _device(args)
    entry = find_entry(load_catalog(), args.model)
    if args.variant and args.include:
        raise UserFacingError(
            "--variant and --include do not go together.",
            hint="--variant is for onnx-community repos, --include for onnxruntime-genai packages.",
        )
    if entry is not None:
        request = request_for_catalog(entry, device, args.revision)
        if args.variant:
            request = replace(request, variant=args.variant, folder=None, model_id=f"{entry.id}-{args.variant}")
        if args.include:
            request = DownloadRequest(
                request.repo, request.revision, args.include.strip("/"), request.model_id, request.name
            )
    else:
        if "/" not in args.model:
            raise UserFacingError(
                f"{args.model!r} is neither a catalog model nor a Hugging Face repo (owner/name).",
                hint="See `localmind models list` for the catalog.",
            )
        request = DownloadRequest(
            args.model,
            args.revision or "main",
            args.include.strip("/") if args.include else None,
            variant=args.variant,
            device=device,
        )
    if args.model_id:
        request = replace(request, model_id=args.model_id)
    return request


def run_download(args: argparse.Namespace) -> int:
    from localmind.core import secrets
    from localmind.core.hub import AlreadyInstalledError, DownloadJob, DownloadStopped, get_installed

    request = _request(args)
    if request.model_id and get_installed(request.model_id) is not None:
        print(f"{request.model_id} is already installed.", file=sys.stderr)
        return 0
    token = sys.stdin.readline().strip() if args.token_stdin else secrets.get_token()
    from localmind.documents.embed import check_embedding_model

    job = DownloadJob(
        request,
        token=token or None,
        on_progress=TerminalProgress(sys.stderr),
        embedding_check=check_embedding_model,
    )
    try:
        model = job.run()
    except AlreadyInstalledError as exc:
        print(exc.message, file=sys.stderr)
        return 0
    except (KeyboardInterrupt, DownloadStopped):
        print(f"\nStopped. Run the same command again to resume {job.model_id or request.repo}.", file=sys.stderr)
        return 130
    if not model.ok:  # pragma: no cover - a fresh download is verified
        raise UserFacingError(f"{model.id} was installed but looks damaged: {model.problem}.")
    print(f"Installed {model.id} in {model.folder}")
    return 0


# -- search ----------------------------------------------------------------------------------------------------------
_VERDICTS = {"ready": "runs here", "setup": "runs here (LocalMind prepares it)", "unsupported": "not supported"}


def run_search(args: argparse.Namespace) -> int:
    from localmind.core import secrets
    from localmind.core.hub.search import HubSearch, check_results, compatible_first

    if args.limit < 1:
        raise UserFacingError("--limit must be at least 1.")
    token = secrets.get_token()
    device = _device(args)
    search = HubSearch(args.text, token=token, page_size=args.limit)
    found = search.next_page()
    if not args.json and found:
        print(f"Checking {len(found)} result(s)…", file=sys.stderr)
    results = compatible_first(check_results(found, device=device, token=token))
    if args.json:
        json.dump([r.to_json() for r in results], sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    if not results:
        print(f"No ONNX models on Hugging Face match {args.text!r}.")
        return 0
    for r in results:
        c = r.compatibility
        verdict = _VERDICTS.get(c.verdict.value, "could not be checked") if c else "?"
        updated = r.last_modified.date().isoformat() if r.last_modified else "?"
        print(f"{r.repo}")
        stats = f"{r.downloads or 0} downloads, {r.likes or 0} likes, updated {updated}"
        print(f"  {verdict}: {c.reason if c else ''}")
        if c is not None and c.runs:
            size = human_bytes(c.download_bytes) if c.download_bytes else "?"
            params = f"{c.parameters / 1e9:.2f}B parameters" if c.parameters else "parameters unknown"
            memory = human_bytes(c.memory_bytes) if c.memory_bytes else "?"
            what = f"variant {c.choice} ({c.quantization})" if c.verdict.value == "setup" else c.choice
            print(f"  downloads {what}: {size}; {params}; needs about {memory} of memory")
            if len(c.variants) > 1 and c.verdict.value == "setup":
                print(f"  other variants: {', '.join(v for v in c.variants if v != c.choice)} (--variant NAME)")
            print(f"  localmind models download {r.repo}")
        print(f"  {stats}")
    return 0


# -- verify / remove / import / token --------------------------------------------------------------------------------
def run_verify(args: argparse.Namespace) -> int:
    from localmind.core.hub import verify_model

    report = verify_model(args.model_id)
    if report.ok:
        print(f"{args.model_id}: all {report.checked_files} files match their hashes.")
        return 0
    for line in report.damaged:
        print(f"  {line}", file=sys.stderr)
    raise UserFacingError(
        f"{args.model_id} is damaged: {len(report.damaged)} of {report.checked_files} files do not match.",
        hint=f"Remove it (`localmind models remove {args.model_id}`) and download or import it again.",
    )


def run_remove(args: argparse.Namespace) -> int:
    from localmind.core.hub import discard_unfinished, get_installed, list_unfinished, remove_model

    if get_installed(args.model_id) is not None:
        model = remove_model(args.model_id)
        kept = f" (its files in {model.model_path} were left in place)" if model.manifest.source == "reference" else ""
        print(f"Removed {args.model_id}{kept}.")
        return 0
    if any(u.model_id == args.model_id for u in list_unfinished()):
        discard_unfinished(args.model_id)
        print(f"Discarded the unfinished download of {args.model_id}.")
        return 0
    remove_model(args.model_id)  # raises the "not installed" error with the list of ids
    return 1  # pragma: no cover


def run_import(args: argparse.Namespace) -> int:
    from localmind.core.hub import import_folder, import_zip

    path = Path(args.path).expanduser()
    if path.is_file() and path.suffix.lower() == ".zip":
        if args.reference:
            raise UserFacingError(
                "A zip cannot be used in place.", hint="Leave out --reference, or unpack it and import the folder."
            )
        model = import_zip(path, model_id=args.model_id)
    else:
        model = import_folder(path, copy=not args.reference, model_id=args.model_id, variant=args.variant)
    print(f"Imported {model.id} ({model.manifest.describe_source()})")
    return 0


def run_login(args: argparse.Namespace) -> int:
    from localmind.core import secrets

    token = (
        getpass.getpass("Hugging Face access token (input hidden): ") if sys.stdin.isatty() else sys.stdin.readline()
    )
    try:
        where = secrets.set_token(token)
    except ValueError as exc:
        raise UserFacingError("No token given.", hint="Create one at https://huggingface.co/settings/tokens.") from exc
    if where is secrets.TokenStore.KEYRING:
        print("Token stored in the system keyring.")
        return 0
    raise UserFacingError(
        "This system has no keyring, so the token cannot be kept (LocalMind never writes it to a file).",
        hint="Pass it for one download with --token-stdin, or install a keyring service.",
    )


def run_logout(args: argparse.Namespace) -> int:
    from localmind.core import secrets

    secrets.delete_token()
    print("Token forgotten.")
    return 0
