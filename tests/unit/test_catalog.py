"""The model catalog: complete entries, fit hints for this machine, a recommendation, resources found anywhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from localmind import resources
from localmind.core.catalog import (
    GB,
    Fit,
    MachineInfo,
    find_entry,
    fit_hint,
    load_catalog,
    machine_info,
    recommend,
    total_ram_bytes,
)
from localmind.core.hub import request_for_catalog
from localmind.errors import UserFacingError


def test_catalog_entries_are_complete() -> None:
    entries = load_catalog()
    assert len(entries) >= 6
    assert sum(e.recommended for e in entries) == 1
    for entry in entries:
        assert "/" in entry.repo and entry.licence and entry.parameters and entry.context_length > 0
        cpu = entry.variant_for("cpu")
        assert cpu.device == "cpu" and cpu.download_bytes > 0 and cpu.ram_bytes > cpu.download_bytes / 2
        assert entry.description_for("en") and entry.description_for("zh_CN") != entry.description_for("en")
        assert entry.page_url == f"https://huggingface.co/{entry.repo}"
    phi = find_entry(entries, "phi-3.5-mini-instruct")
    assert phi is not None and phi.variant_for("cuda").folder == "gpu/gpu-int4-awq-block-128"
    assert phi.variant_for("coreml").device == "cpu"  # no CoreML variant: the CPU one runs everywhere


def test_catalog_requests_pick_the_device_folder() -> None:
    phi = find_entry(load_catalog(), "phi-3.5-mini-instruct")
    assert phi is not None
    cpu = request_for_catalog(phi)
    assert (cpu.model_id, cpu.folder, cpu.repo) == (
        "phi-3.5-mini-instruct",
        "cpu_and_mobile/cpu-int4-awq-block-128-acc-level-4",
        phi.repo,
    )
    assert request_for_catalog(phi, "dml").model_id == "phi-3.5-mini-instruct-dml"


def test_fit_hints_and_recommendation() -> None:
    entries = load_catalog()
    phi = find_entry(entries, "phi-3.5-mini-instruct")
    assert phi is not None
    big = MachineInfo(total_ram_bytes=32 * GB, free_disk_bytes=500 * GB)
    assert fit_hint(phi, big).fit is Fit.GOOD and "fits this computer" in fit_hint(phi, big).describe()
    assert recommend(entries, big) is phi
    laptop = MachineInfo(total_ram_bytes=6 * GB, free_disk_bytes=500 * GB)
    assert fit_hint(phi, laptop).fit is Fit.TIGHT
    small = recommend(entries, laptop)
    assert small is not None and fit_hint(small, laptop).fit is Fit.GOOD
    tiny = MachineInfo(total_ram_bytes=2 * GB, free_disk_bytes=500 * GB)
    assert fit_hint(phi, tiny).fit is Fit.TOO_BIG and "too big" in fit_hint(phi, tiny).describe()
    full = MachineInfo(total_ram_bytes=32 * GB, free_disk_bytes=1 * GB)
    hint = fit_hint(phi, full)
    assert hint.fit is Fit.NO_DISK and not hint.usable and "not enough disk space" in hint.describe()
    unknown = MachineInfo(total_ram_bytes=None, free_disk_bytes=None)
    assert fit_hint(phi, unknown).fit is Fit.GOOD


def test_this_machine_is_measured() -> None:
    info = machine_info()
    assert info.total_ram_bytes is None or info.total_ram_bytes > 100_000_000
    assert total_ram_bytes() == info.total_ram_bytes
    assert info.free_disk_bytes is not None  # the models folder need not exist yet


def test_a_damaged_catalog_says_reinstall(tmp_path: Path) -> None:
    bad = tmp_path / "catalog.json"
    bad.write_text(json.dumps({"format": 1, "models": [{"id": "x"}]}))
    with pytest.raises(UserFacingError, match=r"damaged.*Reinstall"):
        load_catalog(bad)
    with pytest.raises(UserFacingError, match="missing"):
        load_catalog(tmp_path / "nope.json")
    entry = json.loads(resources.resource_path("catalog.json").read_text())["models"][0]
    bad.write_text(json.dumps({"format": 1, "models": [entry, entry]}))
    with pytest.raises(UserFacingError, match="twice"):
        load_catalog(bad)


def test_resources_are_found_in_a_source_tree_and_a_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resources.resource_path("catalog.json").is_file()
    bundle = tmp_path / "bundle"
    (bundle / "resources").mkdir(parents=True)
    (bundle / "resources" / "catalog.json").write_text("{}")
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    assert resources.resources_dir() == bundle / "resources"
    monkeypatch.chdir(tmp_path)  # never relative to the working directory
    assert resources.resource_path("catalog.json") == bundle / "resources" / "catalog.json"


def test_the_recommendation_weighs_cpu_speed_not_only_memory() -> None:
    """Issue 8: a 2-core laptop with plenty of memory is offered a small fast model, not a 3.8B one."""
    from localmind.core.catalog import tokens_per_s
    from localmind.core.cpu_speed import COMFORTABLE_TOKENS_PER_S, CpuSpeed

    entries = load_catalog()
    laptop = MachineInfo(total_ram_bytes=16 * GB, free_disk_bytes=500 * GB, cpu=CpuSpeed(cores=2, ghz=2.0))
    pick = recommend(entries, laptop)
    assert pick is not None and pick.starter and (pick.parameters_b or 9) <= 1.5
    assert (tokens_per_s(pick, laptop) or 0) >= COMFORTABLE_TOKENS_PER_S
    desktop = MachineInfo(total_ram_bytes=32 * GB, free_disk_bytes=500 * GB, cpu=CpuSpeed(cores=8, ghz=3.5))
    assert recommend(entries, desktop) is find_entry(entries, "phi-3.5-mini-instruct")
    # Memory still rules: 2 GB of RAM gets something that fits, however fast the CPU.
    small = MachineInfo(total_ram_bytes=2 * GB, free_disk_bytes=500 * GB, cpu=CpuSpeed(cores=16, ghz=4.0))
    tiny_pick = recommend(entries, small)
    assert tiny_pick is not None and tiny_pick.variant_for("cpu").ram_bytes <= 0.6 * 2 * GB


def test_onnx_community_entries_name_their_variant_and_say_why() -> None:
    entries = load_catalog()
    for entry_id in ("smollm2-135m-instruct", "qwen3-0.6b", "qwen3-1.7b", "qwen2.5-1.5b-instruct", "gemma-3-1b-it"):
        entry = find_entry(entries, entry_id)
        assert entry is not None and entry.repo.startswith("onnx-community/")
        assert entry.variant_for("cpu").variant == "q4" and entry.form == "community"
        assert "onnx-community" in entry.form_note_for("en") and entry.form_note_for("zh_CN") != entry.form_note_for(
            "en"
        )
        request = request_for_catalog(entry)
        assert request.variant == "q4" and request.folder is None and request.model_id == entry_id
    qwen05 = find_entry(entries, "qwen2.5-0.5b-instruct")
    assert qwen05 is not None and qwen05.form == "og" and "faster" in qwen05.form_note_for("en")
