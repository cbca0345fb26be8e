"""Listing repos through the real huggingface_hub client, against the fake hub."""

from __future__ import annotations

import pytest

from localmind.core.hub import AuthRequiredError, HubError, HubSettings, list_repo
from localmind.core.hub.download import choose_folder, default_model_id
from localmind.core.hub.listing import check_repo_id
from tests.helpers.fake_hub import DEVICE_FOLDER, FakeHub, FakeRepo, git_blob_sha1
from tests.helpers.hub_env import GATED_REPO, REPO, TOKEN, WEIGHTS_PATH, allow_hub_access


def test_listing_follows_pages_and_gives_hashes(hub: FakeHub, settings: HubSettings) -> None:
    listing = list_repo(REPO, settings=settings)
    repo = hub.repos[REPO]
    assert listing.commit == repo.commit
    assert {f.path for f in listing.files} == set(repo.files)
    weights = next(f for f in listing.files if f.path == WEIGHTS_PATH)
    assert weights.sha256 is not None and weights.algorithm == "sha256"
    config = next(f for f in listing.files if f.path.endswith("genai_config.json"))
    assert config.sha256 is None and config.expected_hash == git_blob_sha1(repo.files[config.path])
    # page_size=4: the tree came in several pages, all through the client's own paging.
    assert len(hub.requests(path_contains="/tree/")) > 2
    assert listing.model_folders() == [DEVICE_FOLDER]
    assert listing.size_of(DEVICE_FOLDER) == sum(len(d) for p, d in repo.files.items() if p.startswith(DEVICE_FOLDER))


def test_hf_endpoint_from_the_environment_is_used(hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
    assert list_repo(REPO).commit == hub.repos[REPO].commit


def test_unknown_repo_says_check_the_name(settings: HubSettings) -> None:
    with pytest.raises(HubError, match="was not found on Hugging Face"):
        list_repo("nobody/nothing", settings=settings)


def test_unknown_revision(settings: HubSettings) -> None:
    with pytest.raises(HubError, match="no branch, tag or commit named 'v9'"):
        list_repo(REPO, "v9", settings=settings)


def test_gated_repo_without_token_explains_licence_and_token(settings: HubSettings) -> None:
    with pytest.raises(AuthRequiredError) as info:
        list_repo(GATED_REPO, settings=settings)
    text = str(info.value)
    assert "Accept the model's licence" in text and "access token" in text and GATED_REPO in text


def test_gated_repo_with_a_wrong_token(settings: HubSettings) -> None:
    with pytest.raises(AuthRequiredError, match="refused the access token"):
        list_repo(GATED_REPO, token="hf_wrong", settings=settings)


def test_gated_repo_with_token_lists(hub: FakeHub, settings: HubSettings) -> None:
    assert list_repo(GATED_REPO, token=TOKEN, settings=settings).model_folders() == [DEVICE_FOLDER]
    assert all(r.authorized for r in hub.requests(origin="hub"))


def test_offline_mode_is_reported(settings: HubSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(HubError, match="HF_HUB_OFFLINE"):
        list_repo(REPO, settings=settings)


def test_unreachable_hub_retries_then_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    allow_hub_access(monkeypatch)
    settings = HubSettings(endpoint="http://127.0.0.1:9", max_attempts=2, backoff_base_s=0.01, connect_timeout_s=1)
    with pytest.raises(HubError, match=r"Cannot reach http://127\.0\.0\.1:9"):
        list_repo(REPO, settings=settings)


@pytest.mark.parametrize("bad", ["", "a/b/c", "../etc", "x/..", "has space/x"])
def test_bad_repo_ids_are_refused(bad: str) -> None:
    with pytest.raises(HubError, match="not a Hugging Face model id"):
        check_repo_id(bad)


def test_repo_urls_are_accepted() -> None:
    assert (
        check_repo_id("https://huggingface.co/microsoft/Phi-3.5-mini-instruct-onnx/")
        == "microsoft/Phi-3.5-mini-instruct-onnx"
    )


def test_choosing_among_several_variants(hub: FakeHub, settings: HubSettings) -> None:
    files = dict(hub.repos[REPO].files)
    for path, data in list(files.items()):
        if path.startswith(DEVICE_FOLDER):
            files[path.replace(DEVICE_FOLDER, "cuda/cuda-int4-rtn-block-32")] = data
    hub.add_repo(FakeRepo("org/multi", files))
    listing = list_repo("org/multi", settings=settings)
    assert listing.model_folders() == [
        "cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4",
        "cuda/cuda-int4-rtn-block-32",
    ]
    with pytest.raises(HubError, match="several model variants") as info:
        choose_folder(listing, None)
    assert "cuda/cuda-int4-rtn-block-32" in str(info.value)
    assert choose_folder(listing, "cuda/cuda-int4-rtn-block-32/") == "cuda/cuda-int4-rtn-block-32"
    # A catalog entry whose folder was renamed upstream still finds the CPU variant.
    assert choose_folder(listing, "cpu_and_mobile/old-name", fallback_device="cpu") == DEVICE_FOLDER
    with pytest.raises(HubError, match="has no model folder 'nope'"):
        choose_folder(listing, "nope")
    assert default_model_id("org/multi", "cuda/cuda-int4-rtn-block-32") == "multi-cuda-int4-rtn-block-32"


def test_repo_without_og_model(hub: FakeHub, settings: HubSettings) -> None:
    hub.add_repo(FakeRepo("org/transformers-js", {"onnx/model_q4.onnx": b"x" * 100, "config.json": b"{}"}))
    with pytest.raises(HubError, match="no onnxruntime-genai model"):
        choose_folder(list_repo("org/transformers-js", settings=settings), None)
