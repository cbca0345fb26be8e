"""onnx-community repos on the fake hub: only the chosen variant is fetched; unsupported architectures are refused
before any weights; search lists what runs here first."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from localmind import paths
from localmind.core.hub import DownloadJob, DownloadRequest, HubError, HubSettings
from localmind.core.hub.community import UnsupportedArchitectureError, estimate_parameters
from localmind.core.hub.search import HubSearch, OfflineError, Verdict, check_results, compatible_first
from tests.helpers.fake_hub import FakeHub, FakeRepo, community_repo_files
from tests.helpers.hub_env import allow_hub_access, assert_nothing_installed, fast_settings

SMOL = "onnx-community/SmolLM2-135M-Instruct-ONNX"
WHISPER = "onnx-community/whisper-tiny-ONNX"
SMOL_CONFIG = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 576,
    "intermediate_size": 1536,
    "num_hidden_layers": 30,
    "num_attention_heads": 9,
    "num_key_value_heads": 3,
    "vocab_size": 49152,
    "tie_word_embeddings": True,
    "max_position_embeddings": 8192,
}
WHISPER_CONFIG = {"model_type": "whisper", "architectures": ["WhisperForConditionalGeneration"]}


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    allow_hub_access(monkeypatch)
    server = FakeHub()
    server.add_repo(
        FakeRepo(
            SMOL, community_repo_files(config=SMOL_CONFIG), info={"downloads": 5000, "likes": 40, "tags": ["onnx"]}
        )
    )
    server.add_repo(
        FakeRepo(WHISPER, community_repo_files(config=WHISPER_CONFIG), info={"downloads": 9000, "tags": ["onnx"]})
    )
    server.add_repo(
        FakeRepo(
            "someone/smollm2-pytorch",
            {"config.json": b"{}", "model.safetensors": b"x" * 100},
            info={"downloads": 1, "tags": ["safetensors"]},
        )
    )
    with server:
        yield server


@pytest.fixture
def settings(hub: FakeHub) -> HubSettings:
    return fast_settings(hub)


def fetched_bodies(hub: FakeHub) -> set[str]:
    """Files whose bytes were requested (GET on the CDN or a resolve URL)."""
    out = set()
    for r in hub.requests(method="GET"):
        if "/api/" in r.path:
            continue
        if r.origin == "cdn":
            out.add(r.path.split("/", 4)[-1])
        elif "/resolve/" in r.path:
            out.add(r.path.split("/resolve/", 1)[1].split("/", 1)[1])
    return out


def test_an_unsupported_architecture_is_refused_before_any_weights(hub: FakeHub, settings: HubSettings) -> None:
    with pytest.raises(UnsupportedArchitectureError) as caught:
        DownloadJob(DownloadRequest(WHISPER), settings=settings).run()
    message = str(caught.value)
    assert "WhisperForConditionalGeneration (whisper)" in message and "Supported:" in message and "Qwen3" in message
    assert fetched_bodies(hub) == {"config.json"}  # the few kB that say what it is, nothing else
    assert hub.bytes_served.get("onnx/model_q4.onnx", 0) == 0
    assert not (paths.staging_dir() / "whisper-tiny-onnx-q4").exists()
    assert_nothing_installed()


@pytest.mark.parametrize(("device", "variant"), [("cpu", "q4"), ("cuda", "fp16"), ("dml", "fp16")])
def test_only_the_variant_for_the_device_is_fetched(
    hub: FakeHub, settings: HubSettings, device: str, variant: str
) -> None:
    # The filler graphs are not real ONNX: preparing them fails, after the download — which is what this checks.
    with pytest.raises(HubError, match="could not prepare it"):
        DownloadJob(DownloadRequest(SMOL, device=device), settings=settings).run()
    onnx = f"onnx/model_{variant}.onnx"
    files = hub.repos[SMOL].files
    expected = {"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"}
    expected |= {"special_tokens_map.json", "README.md", onnx} | {p for p in files if p.startswith(onnx + "_data")}
    assert fetched_bodies(hub) == expected
    other_weights = [p for p in files if p.startswith("onnx/") and p not in expected]
    assert other_weights and all(hub.bytes_served.get(p, 0) == 0 for p in other_weights)


def test_variant_named_by_the_user(hub: FakeHub, settings: HubSettings) -> None:
    with pytest.raises(HubError, match="could not prepare it"):
        DownloadJob(DownloadRequest(SMOL, variant="int8"), settings=settings).run()
    assert "onnx/model_int8.onnx" in fetched_bodies(hub)
    assert "onnx/model_q4.onnx" not in fetched_bodies(hub)
    with pytest.raises(HubError, match=r"no variant 'q3'.*q4"):
        DownloadJob(DownloadRequest(SMOL, variant="q3"), settings=settings).run()


def test_search_finds_onnx_repos_and_says_which_run_here(hub: FakeHub, settings: HubSettings) -> None:
    search = HubSearch("SMOLLM2", settings=settings)
    page = search.next_page()
    assert [r.repo for r in page] == [SMOL]  # the safetensors-only repo is not tagged onnx
    assert page[0].downloads == 5000 and page[0].likes == 40 and page[0].last_modified is not None
    checked = check_results(hub_search_all(settings, "onnx-community"), settings=settings)
    ordered = compatible_first(checked)
    assert [r.repo for r in ordered] == [SMOL, WHISPER]  # whisper has more downloads but does not run
    smol, whisper = (r.compatibility for r in ordered)
    assert smol is not None and whisper is not None
    assert smol.verdict is Verdict.SETUP and smol.choice == "q4" and smol.model_type == "llama"
    files = hub.repos[SMOL].files
    assert smol.download_bytes == sum(
        len(files[p])
        for p in (
            "config.json",
            "generation_config.json",
            "tokenizer.json",
            "tokenizer_config.json",
            "special_tokens_map.json",
            "README.md",
            "onnx/model_q4.onnx",
        )
    )
    assert smol.parameters is not None and 120e6 < smol.parameters < 150e6  # SmolLM2-135M's shapes
    assert smol.memory_bytes is not None and smol.memory_bytes > smol.download_bytes
    assert set(smol.variants) >= {"q4", "fp16", "fp32", "int8"}
    assert whisper.verdict is Verdict.UNSUPPORTED and "whisper" in whisper.reason
    # The verdicts came from listings and config.json alone.
    assert fetched_bodies(hub) == {"config.json"}


def hub_search_all(settings: HubSettings, text: str) -> list:  # type: ignore[type-arg]
    search = HubSearch(text, settings=settings, page_size=1)
    results = []
    while not search.exhausted:
        results += search.next_page()
    return results


def test_search_pages(hub: FakeHub, settings: HubSettings) -> None:
    hub.search_page_size = 1
    assert [r.repo for r in hub_search_all(settings, "onnx")] == [WHISPER, SMOL]
    assert len(hub.requests(path_contains="/api/models")) >= 2


def test_search_offline_says_it_needs_the_internet(monkeypatch: pytest.MonkeyPatch) -> None:
    allow_hub_access(monkeypatch)
    settings = HubSettings(endpoint="http://127.0.0.1:9", connect_timeout_s=1, max_attempts=1)
    with pytest.raises(OfflineError) as caught:
        HubSearch("qwen3", settings=settings).next_page()
    assert "needs an internet connection" in str(caught.value)
    assert "ConnectError" not in str(caught.value)


def test_parameter_estimate_matches_known_models() -> None:
    qwen3_06b = {
        "hidden_size": 1024,
        "intermediate_size": 3072,
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 151936,
        "tie_word_embeddings": True,
    }
    estimate = estimate_parameters(qwen3_06b)
    assert estimate is not None and 0.55e9 < estimate < 0.65e9  # Qwen3-0.6B: 0.6B with tied embeddings
    assert estimate_parameters({"model_type": "llama"}) is None
    assert json.dumps(SMOL_CONFIG)  # the fixture's shapes are SmolLM2-135M's


def test_an_interrupted_variant_download_resumes_the_same_variant(hub: FakeHub, settings: HubSettings) -> None:
    from localmind.core.hub import DownloadStopped, TransferControl, list_unfinished

    control = TransferControl()
    seen: list[str] = []

    def pause_on_weights(p: object) -> None:
        current = getattr(p, "current_file", "")
        if current.startswith("onnx/") and not seen:
            seen.append(current)
            control.pause()

    request = DownloadRequest(SMOL, variant="int8")
    with pytest.raises(DownloadStopped):
        DownloadJob(request, settings=settings, control=control, on_progress=pause_on_weights).run()
    (unfinished,) = list_unfinished()
    assert unfinished.variant == "int8" and unfinished.model_id == "smollm2-135m-instruct-onnx-int8"
    resumed = unfinished.request()
    assert resumed.variant == "int8" and resumed.folder is None
    with pytest.raises(HubError, match="could not prepare it"):  # filler graphs: the download itself completes
        DownloadJob(resumed, settings=settings).run()
    assert "onnx/model_q4.onnx" not in fetched_bodies(hub)
