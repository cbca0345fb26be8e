"""LocalMind's own validator (localmind/schema.py) against msgspec, for the three kinds of JSON LocalMind checks.

    .venv/bin/pip install msgspec   # only for this bench: LocalMind does not depend on it
    python bench/validation.py [--runs 9] [--loops 2000]

Prints JSON (check ``uptime`` first; the load average is in the output):

* ``import_ms``: ``python -X importtime`` cumulative time of ``localmind.schema`` and of ``msgspec``, alone (a bare
  interpreter) and as ``localmind serve`` meets it (after ``localmind.server.app``, which serve imports before it
  answers /health); medians of ``--runs`` fresh processes.
* ``installed_bytes``: what a bundle would add: msgspec's wheel files (its RECORD) against schema.py + fields.py.
* ``validate_us``: decode + check of a typical chat request (4 messages, 6 fields) and of a hostile one (13,000
  messages, the last one bad: the worst case for a first-error check), per call; ``json.loads`` + ``parse`` against
  ``msgspec.json.decode(..., type=...)`` and ``msgspec.convert`` of the decoded value (the check alone).
* ``messages``: the error each gives for a dozen bad bodies, side by side (the API's tests pin LocalMind's wording).
* ``json_schema``: what msgspec's own schema of the mirror classes can say that /openapi.json needs.

The msgspec classes below mirror the chat request's fields that the bodies here use (server/schemas.py), with the
same limits, so both check the same thing.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, Literal

try:
    import msgspec
    from msgspec import Meta, Struct
except ImportError:  # LocalMind does not depend on it
    sys.exit("bench/validation.py compares with msgspec: .venv/bin/pip install msgspec first")

from localmind import schema
from localmind.server.schemas import ChatCompletionRequest

SRC = Path(__file__).resolve().parents[1] / "src"


class MsPart(Struct, forbid_unknown_fields=True):
    type: Literal["text"]
    text: str


class MsMessage(Struct, forbid_unknown_fields=True):
    role: Literal["system", "developer", "user", "assistant"]
    content: str | list[MsPart] | None = None
    name: str | None = None


class MsChat(Struct, forbid_unknown_fields=True):
    model: Annotated[str, Meta(description="The served model's id (GET /v1/models).")]
    messages: Annotated[list[MsMessage], Meta(min_length=1, description="The conversation.")]
    temperature: Annotated[float, Meta(ge=0, le=2, description="Below 1e-5 it picks the most likely token.")] | None = (
        None
    )
    top_p: Annotated[float, Meta(gt=0, le=1)] | None = None
    max_tokens: Annotated[int, Meta(ge=1, description="At most this many new tokens.")] | None = None
    stream: bool = False
    stop: str | Annotated[list[str], Meta(max_length=4)] | None = None
    n: Annotated[int, Meta(ge=1, le=1, description="Only n=1 is supported: ask once per answer you need.")] | None = (
        None
    )
    frequency_penalty: Literal[0] | None = None
    logit_bias: Annotated[dict[str, Any], Meta(max_length=0)] | None = None
    seed: int | None = None


def typical() -> dict[str, Any]:
    turns = [("system", "You are terse."), ("user", "Hi"), ("assistant", "Hello."), ("user", "Name three colours.")]
    return {
        "model": "local",
        "messages": [{"role": r, "content": c} for r, c in turns],
        "temperature": 0.7,
        "top_p": 0.9,
        "max_tokens": 256,
        "stream": True,
    }


def hostile() -> dict[str, Any]:
    body = typical()
    body["messages"] = [{"role": "user", "content": "x" * 40} for _ in range(13_000)]
    body["messages"][-1]["role"] = "tool"
    return body


BAD: dict[str, dict[str, Any]] = {
    "no model": {"messages": [{"role": "user", "content": "hi"}]},
    "no messages": {"model": "m", "messages": []},
    "messages not a list": {"model": "m", "messages": "hi"},
    "temperature as text": {**typical(), "temperature": "0.7"},
    "temperature too high": {**typical(), "temperature": 3},
    "top_p zero": {**typical(), "top_p": 0},
    "stream as 1": {**typical(), "stream": 1},
    "max_tokens 1.5": {**typical(), "max_tokens": 1.5},
    "five stops": {**typical(), "stop": ["a", "b", "c", "d", "e"]},
    "unknown field": {**typical(), "foo": 1},
    "n = 2 (refused)": {**typical(), "n": 2},
    "tool role (refused)": {"model": "m", "messages": [{"role": "tool", "content": "x"}]},
    "frequency_penalty 0.5 (refused)": {**typical(), "frequency_penalty": 0.5},
}


def _ours(raw: bytes) -> Any:
    return schema.parse(ChatCompletionRequest, json.loads(raw))


def _per_call_us(fn: Any, arg: Any, loops: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(loops):
            with contextlib.suppress(schema.Invalid, msgspec.ValidationError):
                fn(arg)
        best = min(best, (time.perf_counter() - start) / loops)
    return round(best * 1e6, 2)


def validate_us(loops: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, body, n in (("typical", typical(), loops), ("hostile_13000_messages", hostile(), max(1, loops // 500))):
        raw, data = json.dumps(body).encode(), body
        out[name] = {
            "bytes": len(raw),
            "localmind_loads_and_parse": _per_call_us(_ours, raw, n),
            "localmind_parse_only": _per_call_us(lambda d: schema.parse(ChatCompletionRequest, d), data, n),
            "msgspec_decode": _per_call_us(lambda r: msgspec.json.decode(r, type=MsChat), raw, n),
            "msgspec_convert_only": _per_call_us(lambda d: msgspec.convert(d, MsChat), data, n),
            "json_loads_only": _per_call_us(json.loads, raw, n),
        }
    return out


def messages() -> dict[str, dict[str, str]]:
    out = {}
    for name, body in BAD.items():
        try:
            schema.parse(ChatCompletionRequest, body)
            ours = "accepted"
        except schema.Invalid as exc:
            ours = f"{'.'.join(map(str, exc.loc))}: {exc.msg}"
        try:
            msgspec.json.decode(json.dumps(body).encode(), type=MsChat)
            theirs = "accepted"
        except msgspec.ValidationError as exc:
            theirs = str(exc)
        out[name] = {"localmind": ours, "msgspec": theirs}
    return out


def json_schema() -> dict[str, Any]:
    _, defs = msgspec.json.schema_components([MsChat], ref_template="#/components/schemas/{name}")
    chat = defs["MsChat"]["properties"]
    try:
        msgspec.json.decode(json.dumps(BAD["n = 2 (refused)"]).encode(), type=MsChat)
        refusal = ""
    except msgspec.ValidationError as exc:
        refusal = str(exc)
    return {
        "descriptions": "description" in json.dumps(chat["model"]),
        "limits": "maximum" in json.dumps(chat["temperature"]) and "minItems" in json.dumps(chat["messages"]),
        "additional_properties_false": defs["MsChat"].get("additionalProperties") is False,
        "refusal_message_of_our_own": "ask once per answer" in refusal,
        "refusal_as_msgspec_says_it": refusal,
        "temperature_schema": chat["temperature"],
    }


def _importtime(code: str, module: str, runs: int, pycache: str) -> float:
    """Median cumulative import time of ``module`` over fresh processes running ``code``, from compiled bytecode (a
    bundle ships it; this machine's PYTHONDONTWRITEBYTECODE would otherwise compile LocalMind from source each time)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(SRC), PYTHONPYCACHEPREFIX=pycache)
    subprocess.run([sys.executable, "-c", code], env=env, check=True)  # writes the bytecode
    found = []
    for _ in range(runs):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code], env=env, capture_output=True, text=True, check=True
        ).stderr
        for line in err.splitlines():
            parts = line.split("|")
            if len(parts) == 3 and parts[2].strip() == module:
                found.append(int(parts[1]))
    return round(statistics.median(found) / 1000, 2)


def import_ms(runs: int) -> dict[str, float]:
    serve = "import localmind.server.app, localmind.server.openapi; "
    with tempfile.TemporaryDirectory() as pycache:
        return {
            "localmind_schema_alone": _importtime("import localmind.schema", "localmind.schema", runs, pycache),
            "msgspec_alone": _importtime("import msgspec, msgspec.json", "msgspec", runs, pycache),
            "localmind_schema_in_serve": _importtime(serve, "localmind.schema", runs, pycache),
            "msgspec_in_serve": _importtime(serve + "import msgspec, msgspec.json", "msgspec", runs, pycache),
        }


def installed_bytes() -> dict[str, int]:
    dist = importlib.metadata.distribution("msgspec")
    files = [f for f in dist.files or () if not str(f).endswith(".pyc")]
    ours = [SRC / "localmind" / "schema.py", SRC / "localmind" / "server" / "fields.py"]
    return {
        "msgspec_wheel_files": sum(Path(str(dist.locate_file(f))).stat().st_size for f in files),
        "msgspec_version": dist.version,  # type: ignore[dict-item]
        "localmind_schema_sources": sum(p.stat().st_size for p in ours),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--loops", type=int, default=2000)
    args = ap.parse_args()
    out: dict[str, Any] = {"load_average_before": [round(x, 2) for x in os.getloadavg()], "python": sys.version}
    out["import_ms"] = import_ms(args.runs)
    out["installed_bytes"] = installed_bytes()
    out["validate_us"] = validate_us(args.loops)
    out["messages"] = messages()
    out["json_schema"] = json_schema()
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
