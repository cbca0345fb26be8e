"""Cold start (issue 12): what the terminal's start-up imports and does, and where og's KV buffer size comes from.

No timings here (bench/coldstart.py measures them): these tests pin the behaviour the figures rest on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from localmind.engine.local import LocalEngine, kv_bytes_per_token
from localmind.engine.process import EngineProcess
from localmind.engine.types import (
    ChatMessage,
    GenerationOptions,
    LoadOptions,
    ModelLoadError,
    TextDelta,
    TurnFinished,
)
from localmind.engine.validate import validate_model_folder
from tests.helpers.tiny_model import REPLIES

GREEDY = GenerationOptions(temperature=0, max_new_tokens=8)
HEAVY = ("PySide6", "fastapi", "uvicorn", "starlette", "pydantic", "huggingface_hub", "onnx", "importlib.metadata")


@pytest.fixture
def og_lengths(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The max_length every og Generator is made with (og's real GeneratorParams, watched)."""
    import onnxruntime_genai as og

    seen: list[int] = []

    class Watched(og.GeneratorParams):  # type: ignore[misc, name-defined]
        def set_search_options(self, **options: Any) -> None:
            if "max_length" in options:
                seen.append(int(options["max_length"]))
            super().set_search_options(**options)

    monkeypatch.setattr(og, "GeneratorParams", Watched)
    yield seen


def _reply(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def _tiny_reply(text: str) -> bool:
    """The start of one of the tiny model's replies (GREEDY stops after a few tokens)."""
    return bool(text) and any(r.startswith(text) for r in REPLIES)


def test_the_terminal_chat_imports_no_window_web_server_or_metadata(tiny_model: Path, tmp_path: Path) -> None:
    script = (
        "import json, sys\n"
        "from localmind.cli import main\n"
        "code = main(['--data-dir', sys.argv[2], 'chat', '--model', sys.argv[1], '--prompt', 'hi',"
        " '--max-new-tokens', '4'])\n"
        "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tiny_model), str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, done.stderr
    loaded = report["modules"]
    assert "onnxruntime_genai" in loaded  # it did run the model
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY]
    assert heavy == []
    # The onnx-community code is for folders without genai_config.json: an og folder does not need it.
    assert "localmind.engine.formats.prepare" not in loaded


WINDOW_SCRIPT = """
import json, sys, time
from localmind import paths


def main():
    paths.set_data_dir(sys.argv[2])
    from PySide6.QtTest import QTest
    from localmind.app import create_app

    mind = create_app(sys.argv[1], load_last_model=False)
    mind.window.show()
    mind.window.repaint()  # the first paint
    # A lazy module not yet used is not a plain module yet.
    painted = [m for m in sys.modules if type(sys.modules[m]).__name__ == "module"]
    deadline = time.monotonic() + 120
    while mind.session.model is None and time.monotonic() < deadline:
        QTest.qWait(20)
    print(json.dumps({"model": mind.session.model is not None, "modules": painted}))
    mind.window.close()


if __name__ == "__main__":
    main()
"""


def test_the_window_s_start_up_imports_no_numpy_keyring_or_http_client(tiny_model: Path, tmp_path: Path) -> None:
    """The first paint waits for every import before it; these are for features used later (issue 12). (After the
    model has loaded the model manager's code brings the HTTP client: that is no longer in the way.)"""
    script = tmp_path / "window.py"
    script.write_text(WINDOW_SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(tiny_model), str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    lines = done.stdout.strip().splitlines()
    assert lines, f"the window script printed nothing (exit {done.returncode}):\n{done.stderr[-3000:]}"
    report = json.loads(lines[-1])
    assert report["model"], done.stderr
    loaded = set(report["modules"])
    assert "PySide6.QtWidgets" in loaded  # it did build the window
    late = sorted(m for m in ("numpy", "keyring", "httpx2", "importlib.metadata") if m in loaded)
    assert late == []


def test_the_version_is_the_installed_metadata_s() -> None:
    from importlib.metadata import version

    import localmind

    assert localmind.__version__ == version("localmind")


def test_version_is_still_printed(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "localmind", "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0 and done.stdout.startswith("LocalMind ") and done.stdout.split()[1][0].isdigit()


def test_the_context_budget_is_og_s_kv_buffer(tiny_model: Path, og_lengths: list[int]) -> None:
    engine = LocalEngine()
    info = engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=300))
    assert info.context_budget == 300
    engine.prepare_first_turn()  # what the engine child does right after answering "load"
    assert og_lengths == [300]
    assert not engine.kv_pending  # the window's engine: nothing left to reserve after a turn
    assert _tiny_reply(_reply(list(engine.generate([ChatMessage("user", "hi")], GREEDY))))
    assert og_lengths == [300]  # the reserved buffer served the turn: no second Generator
    # og holds exactly that much: one token more than the budget is refused by og itself.
    generator = engine.kv.generator
    with pytest.raises(Exception, match=r"max length \(300\)"):
        generator.append_tokens(np.zeros(300, dtype=np.int32))


def test_a_single_turn_sizes_og_s_buffer_to_the_turn(tiny_model: Path, og_lengths: list[int]) -> None:
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=2000, single_turn=True))
    engine.prepare_first_turn()  # nothing to reserve ahead: the turn decides
    assert og_lengths == []
    events = list(engine.generate([ChatMessage("user", "hi")], GREEDY))
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert og_lengths == [finished.stats.prompt_tokens + GREEDY.max_new_tokens + 1]
    # The same reply as an engine with the whole budget.
    full = LocalEngine()
    full.load(str(tiny_model), LoadOptions(device="cpu", context_budget=2000))
    assert _reply(events) == _reply(list(full.generate([ChatMessage("user", "hi")], GREEDY)))
    # A second turn that would not fit is read again into a larger buffer, and answered the same as a fresh one.
    history = [ChatMessage("user", "hi"), ChatMessage("assistant", _reply(events)), ChatMessage("user", "more")]
    again = list(engine.generate(history, GenerationOptions(temperature=0, max_new_tokens=64)))
    assert og_lengths[-1] > og_lengths[0]
    assert _reply(again) == _reply(list(full.generate(history, GenerationOptions(temperature=0, max_new_tokens=64))))


def test_serve_s_first_turn_gets_its_own_buffer_and_the_budget_s_comes_after(
    tiny_model: Path, og_lengths: list[int]
) -> None:
    """``localmind serve``: the request that wakes the server does not wait for the whole context's KV buffer."""
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=2000, kv_after_first_turn=True))
    engine.prepare_first_turn()  # what the engine child does after the load: nothing reserved yet
    assert og_lengths == []
    first = list(engine.generate([ChatMessage("user", "hi")], GREEDY))
    done = first[-1]
    assert isinstance(done, TurnFinished)
    assert og_lengths == [done.stats.prompt_tokens + GREEDY.max_new_tokens + 1]
    # The engine child's idle time after the turn: the budget's buffer, with the conversation read into it.
    ticks: list[int] = []
    assert engine.kv_pending
    assert engine.reserve_kv(on_chunk=lambda: ticks.append(1))
    assert og_lengths[-1] == 2000 and ticks
    assert not engine.kv_pending and not engine.reserve_kv()  # once
    history = [ChatMessage("user", "hi"), ChatMessage("assistant", _reply(first)), ChatMessage("user", "more")]
    options = GenerationOptions(temperature=0, max_new_tokens=64)
    again = list(engine.generate(history, options))
    stats = again[-1].stats  # type: ignore[union-attr]
    assert len(og_lengths) == 2  # the reserved buffer served the next turn...
    assert stats.reused_tokens >= done.stats.prompt_tokens  # ...reading only what is new
    full = LocalEngine()
    full.load(str(tiny_model), LoadOptions(device="cpu", context_budget=2000))
    assert _reply(first) == _reply(list(full.generate([ChatMessage("user", "hi")], GREEDY)))
    assert _reply(again) == _reply(list(full.generate(history, options)))  # exactly what a fresh engine says


def test_serve_s_next_turn_before_the_reservation_gets_the_budget_s_buffer_with_the_cache(
    tiny_model: Path, og_lengths: list[int]
) -> None:
    """A request queued behind the first one comes before the engine child is idle: its turn makes the buffer."""
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=2000, kv_after_first_turn=True))
    first = list(engine.generate([ChatMessage("user", "hi")], GREEDY))
    done = first[-1]
    assert isinstance(done, TurnFinished) and len(og_lengths) == 1
    history = [ChatMessage("user", "hi"), ChatMessage("assistant", _reply(first)), ChatMessage("user", "more")]
    options = GenerationOptions(temperature=0, max_new_tokens=64)
    again = list(engine.generate(history, options))
    assert og_lengths[1:] == [2000] and not engine.kv_pending
    assert again[-1].stats.reused_tokens >= done.stats.prompt_tokens  # type: ignore[union-attr]
    full = LocalEngine()
    full.load(str(tiny_model), LoadOptions(device="cpu", context_budget=2000))
    list(full.generate([ChatMessage("user", "hi")], GREEDY))
    assert _reply(again) == _reply(list(full.generate(history, options)))


def test_reserving_after_a_first_turn_that_left_nothing_just_reserves(tiny_model: Path, og_lengths: list[int]) -> None:
    engine = LocalEngine()
    engine.load(str(tiny_model), LoadOptions(device="cpu", context_budget=500, kv_after_first_turn=True))
    engine.cancel()
    stopped = list(engine.generate([ChatMessage("user", "hi")], GREEDY, reset_cancel=False))
    assert isinstance(stopped[-1], TurnFinished) and not _reply(stopped)
    assert engine.reserve_kv()
    assert og_lengths[-1] == 500
    assert _tiny_reply(_reply(list(engine.generate([ChatMessage("user", "hi")], GREEDY))))
    assert og_lengths == [500]  # the reserved buffer served it


def test_the_terminal_prompt_uses_a_single_turn_buffer(
    tiny_model: Path, og_lengths: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    from localmind.cli import main

    assert main(["chat", "--model", str(tiny_model), "--prompt", "hi", "--max-new-tokens", "5", "--stats"]) == 0
    out = capsys.readouterr()
    prompt_tokens = int(out.err.split(" prompt ")[1].split()[0])
    assert og_lengths == [prompt_tokens + 5 + 1]
    assert _tiny_reply(out.out.strip())


def test_memory_per_token_of_context_follows_the_model_shape(tiny_model: Path) -> None:
    folder = validate_model_folder(tiny_model, read_tokenizer=False)
    decoder = folder.config["model"]["decoder"]
    per_value = decoder["num_hidden_layers"] * decoder["num_key_value_heads"] * decoder["head_size"]
    assert kv_bytes_per_token(folder, "cpu") == per_value * 2 * 4  # keys and values, fp32 on the CPU
    assert kv_bytes_per_token(folder, "cuda") == per_value * 2 * 2  # fp16 on a GPU
    info = LocalEngine().load(str(tiny_model), LoadOptions(device="cpu"))
    assert info.kv_bytes_per_token == per_value * 2 * 4


@pytest.mark.parametrize(
    ("content", "expected"),
    [("<html>Not Found</html>", "is not valid JSON"), ('{"version": "1.0"}', 'no "model" section')],
)
def test_a_damaged_tokenizer_is_still_named(tiny_model: Path, tmp_path: Path, content: str, expected: str) -> None:
    """tokenizer.json is no longer parsed before og loads it (0.1-0.4 s): og's failure still says which file."""
    folder = tmp_path / "m"
    shutil.copytree(tiny_model, folder)
    (folder / "tokenizer.json").write_text(content, encoding="utf-8")
    with pytest.raises(ModelLoadError) as caught:
        LocalEngine().load(str(folder), LoadOptions(device="cpu"))
    assert "tokenizer.json" in str(caught.value) and expected in str(caught.value)


def test_a_cuda_library_that_is_not_installed_is_not_tried(tiny_model: Path) -> None:
    import onnxruntime_genai as og

    if (Path(og.__file__).parent / "libonnxruntime-genai-cuda.so").exists() or sys.platform != "linux":
        pytest.skip("a CUDA build of onnxruntime-genai is installed here")
    info = LocalEngine().load(str(tiny_model), LoadOptions(device="auto"))
    assert info.device == "cpu"
    reasons = dict(info.fallback_reasons)
    assert "libonnxruntime-genai-cuda.so is not installed" in reasons["cuda"]


def test_serve_s_background_load_answers_like_a_load(tiny_model: Path, tmp_path: Path) -> None:
    engine = EngineProcess()
    try:
        engine.start_load(str(tmp_path / "nope"), LoadOptions(device="cpu"))
        with pytest.raises(ModelLoadError, match="not found"):
            engine.wait_loaded()
        engine.start_load(str(tiny_model), LoadOptions(device="cpu"))
        info = engine.wait_loaded()
        assert info.model_name == tiny_model.name and engine.info == info
        assert _tiny_reply(_reply(list(engine.generate([ChatMessage("user", "hi")], GREEDY))))
    finally:
        engine.close()


def test_serve_s_own_process_imports_no_numpy_and_no_engine() -> None:
    """`localmind serve`'s process only routes requests: numpy and the engine's own modules load in the engine's
    process. (numpy alone took ~130 ms and 13 MB in serve's process when a route imported the sampler for a helper.)"""
    script = (
        "import json, sys\n"
        "import localmind.commands.serve, localmind.server.app, localmind.engine.process, localmind.engine.service\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "localmind.server.openai_routes" in modules  # the routes are imported: the check means something
    unwanted = {"numpy", "onnxruntime_genai", "localmind.engine.local", "localmind.engine.sampling"}
    assert not unwanted & modules, sorted(unwanted & modules)
