"""``localmind chat``: talk to a model from the terminal.

With ``--prompt`` the reply streams to stdout and the command exits; without,
it is an interactive chat that keeps the model's cache between turns.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from localmind.engine.types import (
    DEVICES,
    ChatMessage,
    FinishReason,
    GenerationOptions,
    LoadOptions,
    TextDelta,
    TurnFinished,
    TurnStats,
)
from localmind.errors import UserFacingError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("chat", help="chat with a model in the terminal")
    p.add_argument(
        "--model",
        required=True,
        metavar="DIR",
        help="model folder (genai_config.json, or an onnx-community export); with --remote, its name",
    )
    p.add_argument("--remote", metavar="URL", help="chat with a model on an OpenAI-compatible server (messages leave)")
    p.add_argument("--api-key", metavar="KEY", help="the --remote server's key (also $LOCALMIND_REMOTE_API_KEY)")
    p.add_argument(
        "--variant",
        metavar="NAME",
        help="for onnx-community exports: which onnx/model_*.onnx to run (q4, int8, fp16, fp32, ...; default: "
        "the best for the device)",
    )
    p.add_argument(
        "--device", choices=DEVICES, default="auto", help="hardware to run on (default: the best that works)"
    )
    p.add_argument("--system", metavar="TEXT", help="system prompt")
    p.add_argument("--prompt", metavar="TEXT", help="send one message, print the reply and exit ('-' reads stdin)")
    p.add_argument("--max-new-tokens", type=int, default=1024, metavar="N")
    p.add_argument("--temperature", type=float, default=0.7, metavar="T", help="0 = always the most likely token")
    p.add_argument("--top-p", type=float, default=0.9, metavar="P")
    p.add_argument("--top-k", type=int, default=40, metavar="K")
    p.add_argument("--repetition-penalty", type=float, default=1.1, metavar="R")
    p.add_argument("--seed", type=int, metavar="S")
    p.add_argument("--context", type=int, metavar="TOKENS", help="context budget (default: min(model context, 4096))")
    p.add_argument("--threads", type=int, metavar="N", help="CPU threads (default: physical cores)")
    p.add_argument("--stats", action="store_true", help="print time to first token, tokens/s and device to stderr")
    p.add_argument(
        "--docs",
        nargs="?",
        const="",
        metavar="COLLECTION",
        help="answer from your documents (all, or one collection); prints the sources after each reply",
    )
    p.set_defaults(handler=run)


TERMINAL = "terminal"  # the terminal chat's client id in the engine service


class _Counter:
    """Token counts for the documents' passages, as jobs of the engine service (its one owner)."""

    def __init__(self, service: Any) -> None:
        self._service = service

    def count_tokens(self, messages: list[ChatMessage]) -> int:
        from localmind.engine.service import CountTokens, Priority

        return int(self._service.run(CountTokens(list(messages)), priority=Priority.WINDOW, client=TERMINAL))


def _events(ticket: Any) -> Iterator[Any]:
    """The turn's events; polled, so that Ctrl+C reaches this thread at once."""
    import queue

    from localmind.engine.service import is_final

    while True:
        try:
            event = next(iter(ticket.events(timeout=0.1)))
        except queue.Empty:
            continue
        yield event
        if is_final(event):
            return


def _stream_turn(
    service: Any, history: list[ChatMessage], options: GenerationOptions, out: TextIO
) -> tuple[str, TurnFinished]:
    """One turn as a job of the engine service; Ctrl+C cancels it (it stops within one step) and is raised."""
    from localmind.engine.service import Dropped, Failed, Priority, Turn

    ticket = service.submit(Turn(list(history), options), priority=Priority.WINDOW, client=TERMINAL)
    parts: list[str] = []
    try:
        for event in _events(ticket):
            if isinstance(event, TextDelta):
                parts.append(event.text)
                out.write(event.text)
                out.flush()
            elif isinstance(event, TurnFinished):
                return "".join(parts), event
            elif isinstance(event, Failed):
                raise event.error or UserFacingError("The engine ended the turn without saying why.")
            elif isinstance(event, Dropped):
                return "".join(parts), TurnFinished(FinishReason.CANCELLED, TurnStats())
    except KeyboardInterrupt:
        ticket.cancel()
        for _ in _events(ticket):  # to its end: the next turn starts on a clean engine
            pass
        raise
    raise AssertionError("unreachable")


def _print_stats(info: Any, finished: TurnFinished) -> None:
    s = finished.stats
    line = (
        f"[{info.device}] ttft {s.time_to_first_token_s * 1000:.0f} ms, {s.tokens_per_second:.1f} tok/s, "
        f"{s.generated_tokens} tokens, prompt {s.prompt_tokens} ({s.reused_tokens} reused), "
        f"context {s.context_tokens}/{s.context_budget}, {finished.reason.value}"
    )
    if s.dropped_messages:
        line += f", {s.dropped_messages} old messages left out to fit"
    print(line, file=sys.stderr)


MIN_CONTEXT = 64  # below this no chat template and question fit


def check_arguments(args: argparse.Namespace) -> None:
    """One-line errors for numbers out of range, before the model is loaded."""
    if args.seed is not None and args.seed < 0:
        # numpy's generator refuses negative seeds: a traceback from deep in the engine before this check.
        raise UserFacingError(f"--seed must be 0 or more (got {args.seed}).")
    if args.context is not None and args.context < MIN_CONTEXT:
        raise UserFacingError(
            f"--context must be at least {MIN_CONTEXT} tokens (got {args.context}).",
            hint="Leave it out to use the model's own context, up to 4096.",
        )
    if args.threads is not None and args.threads < 1:
        raise UserFacingError(
            f"--threads must be 1 or more (got {args.threads}).", hint="Leave it out to use one per CPU core."
        )


def run(args: argparse.Namespace) -> int:
    from localmind.engine.local import LocalEngine

    check_arguments(args)

    options = GenerationOptions(
        temperature=args.temperature,
        top_p=args.top_p,
        top_k=args.top_k,
        repetition_penalty=args.repetition_penalty,
        max_new_tokens=args.max_new_tokens,
        seed=args.seed,
    )
    options.validate()
    engine: Any
    if args.remote:
        import os

        from localmind.engine.remote import RemoteEngine

        # Its load info carries the warning that messages leave this computer; it is printed below.
        engine = RemoteEngine(args.remote, args.api_key or os.environ.get("LOCALMIND_REMOTE_API_KEY"))
    else:
        engine = LocalEngine()
    from localmind.engine.service import EngineService

    service = EngineService(engine)  # the engine's one owner: every turn, count and load is a job of it
    try:
        return _chat(args, service, options)
    finally:
        service.close()


def _chat(args: argparse.Namespace, service: Any, options: GenerationOptions) -> int:
    from localmind.engine.service import Load, Priority

    load = Load(
        args.model,
        LoadOptions(
            device=args.device,
            threads=args.threads,
            context_budget=args.context,
            variant=args.variant,
            single_turn=args.prompt is not None and args.docs is None,  # one reply and exit: a KV buffer that fits it
        ),
    )
    info = service.run(load, priority=Priority.WINDOW, client=TERMINAL)
    if args.stats:
        print(
            f"[{info.model_name}] device {info.device}, {info.threads} threads, load {info.load_s:.2f} s",
            file=sys.stderr,
        )
        for device, reason in info.fallback_reasons:
            print(f"  {device} not used: {reason}", file=sys.stderr)
    for warning in info.warnings:
        print(f"note: {warning}", file=sys.stderr)
    history: list[ChatMessage] = [ChatMessage("system", args.system)] if args.system else []
    documents: Any = None  # DocumentsTurns with --docs
    if args.docs is not None:
        from localmind.commands.docs_chat import DocumentsTurns

        documents = DocumentsTurns.open(args.docs, _Counter(service), info, options)
        history = documents.system(history)

    if args.prompt is not None:
        prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
        if not prompt.strip():
            raise UserFacingError("The prompt is empty.", hint="Pass some text with --prompt.")
        history.append(ChatMessage("user", documents.prompt(history, prompt) if documents else prompt))
        reply, finished = _stream_turn(service, history, options, sys.stdout)
        sys.stdout.write("\n")
        if documents is not None:
            print(documents.sources_line(reply))
        if args.stats:
            _print_stats(info, finished)
        if finished.reason is FinishReason.ERROR:
            raise UserFacingError(finished.error or "Generation failed.")
        return 0

    interactive = sys.stdin.isatty()
    if interactive:
        print(
            f"Chatting with {info.model_name} on {info.device}. Empty line or Ctrl+D to quit; Ctrl+C stops a reply.",
            file=sys.stderr,
        )
    while True:
        try:
            line = input("> " if interactive else "")
        except EOFError:
            break
        if not line.strip():
            if interactive:
                break
            continue
        history.append(ChatMessage("user", documents.prompt(history, line) if documents else line))
        try:
            reply, finished = _stream_turn(service, history, options, sys.stdout)
        except KeyboardInterrupt:
            reply, finished = "", None  # type: ignore[assignment]
            print("\n[stopped]", file=sys.stderr)
        sys.stdout.write("\n")
        sys.stdout.flush()
        if finished is not None and finished.reason is FinishReason.ERROR:
            print(f"localmind: {finished.error}", file=sys.stderr)
            history.pop()
            continue
        history.append(ChatMessage("assistant", reply))
        if documents is not None:
            print(documents.sources_line(reply))
        if args.stats and finished is not None:
            _print_stats(info, finished)
    return 0
