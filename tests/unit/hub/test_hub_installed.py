"""Installed models: only complete manifests count; verify, remove, import a folder or a zip safely."""

from __future__ import annotations

import json
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from localmind import paths
from localmind.core.hub import (
    MANIFEST_NAME,
    get_installed,
    import_folder,
    import_zip,
    list_installed,
    remove_model,
    verify_model,
)
from localmind.core.hub.manifest import safe_relative_path
from localmind.engine.types import ModelLoadError
from localmind.errors import UserFacingError
from tests.helpers.hub_env import assert_nothing_installed


def test_import_folder_by_copy(tiny_model: Path) -> None:
    model = import_folder(tiny_model)
    assert model.ok and model.manifest.source == "folder" and model.model_path == model.folder
    assert model.folder.parent == paths.models_dir()
    assert (model.folder / "model.onnx").read_bytes() == (tiny_model / "model.onnx").read_bytes()
    assert model.size_on_disk == sum(p.stat().st_size for p in tiny_model.iterdir())
    assert [m.id for m in list_installed()] == [model.id]
    assert "imported from" in model.manifest.describe_source()
    second = import_folder(tiny_model)
    assert second.id == f"{model.id}-2"


def test_import_folder_by_reference_keeps_files_in_place(tiny_model: Path, tmp_path: Path) -> None:
    source = shutil.copytree(tiny_model, tmp_path / "mine")
    model = import_folder(source, copy=False, model_id="mine")
    assert model.model_path == source.resolve() and model.size_on_disk == 0
    assert sorted(p.name for p in model.folder.iterdir()) == [MANIFEST_NAME]
    remove_model("mine")
    assert (source / "model.onnx").exists()  # the user's own folder is never deleted
    assert_nothing_installed()


def test_import_refuses_a_folder_that_is_not_a_model(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ModelLoadError, match=r"genai_config\.json is missing"):
        import_folder(tmp_path)
    assert_nothing_installed()


def test_only_complete_manifests_are_listed(tiny_model: Path) -> None:
    model = import_folder(tiny_model, model_id="good")
    models = paths.models_dir()
    shutil.copytree(tiny_model, models / "no-manifest")  # e.g. a copy that never finished
    broken = shutil.copytree(model.folder, models / "broken-json")
    (broken / MANIFEST_NAME).write_text('{"format": 1, "id": "broken-json", "files": [')
    wrong_total = shutil.copytree(model.folder, models / "wrong-total")
    data = json.loads((wrong_total / MANIFEST_NAME).read_text())
    data["id"], data["total_bytes"] = "wrong-total", 1
    (wrong_total / MANIFEST_NAME).write_text(json.dumps(data))
    escaping = shutil.copytree(model.folder, models / "escaping")
    data = json.loads((escaping / MANIFEST_NAME).read_text())
    data["id"] = "escaping"
    data["files"][0]["path"] = "../../etc/passwd"
    (escaping / MANIFEST_NAME).write_text(json.dumps(data))
    assert [m.id for m in list_installed()] == ["good"]


def test_a_damaged_file_is_flagged_and_verify_records_it(tiny_model: Path) -> None:
    model = import_folder(tiny_model, model_id="tiny")
    assert verify_model("tiny").ok
    target = model.folder / "model.onnx"
    data = bytearray(target.read_bytes())
    data[100] ^= 0xFF  # same size: only hashing finds it
    target.write_bytes(bytes(data))
    assert get_installed("tiny").ok  # type: ignore[union-attr]
    report = verify_model("tiny")
    assert not report.ok and report.damaged == ["model.onnx: content changed (sha256 differs)"]
    again = get_installed("tiny")
    assert again is not None and not again.ok and "failed verification" in (again.problem or "")
    target.unlink()
    assert "model.onnx" in (get_installed("tiny").problem or "")  # type: ignore[union-attr]


def test_remove_and_unknown_ids(tiny_model: Path) -> None:
    import_folder(tiny_model, model_id="tiny")
    remove_model("tiny")
    assert_nothing_installed()
    with pytest.raises(UserFacingError, match="No installed model is called 'tiny'"):
        remove_model("tiny")
    with pytest.raises(UserFacingError, match="No installed model"):
        verify_model("../etc")


def _zip(path: Path, members: dict[str, bytes], links: tuple[str, ...] = ()) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return path


def _model_members(tiny_model: Path, prefix: str) -> dict[str, bytes]:
    return {f"{prefix}{p.name}": p.read_bytes() for p in tiny_model.iterdir()}


def test_import_zip_with_the_model_in_a_subfolder(tiny_model: Path, tmp_path: Path) -> None:
    members = {**_model_members(tiny_model, "phi/cpu-int4/"), "phi/README.md": b"hi"}
    model = import_zip(_zip(tmp_path / "phi.zip", members))
    assert model.ok and model.manifest.source == "zip" and model.id == "phi-cpu-int4"
    assert not (model.folder / "README.md").exists()
    assert verify_model(model.id).ok
    assert not any(p.name.startswith("unzip-") for p in paths.staging_dir().iterdir())


@pytest.mark.parametrize("evil", ["../evil.txt", "/abs/evil.txt", "a/../../evil.txt", "C:/evil.txt", "..\\evil.txt"])
def test_zip_paths_that_escape_are_refused(tiny_model: Path, tmp_path: Path, evil: str) -> None:
    archive = _zip(tmp_path / "evil.zip", {**_model_members(tiny_model, ""), evil: b"pwned"})
    with pytest.raises(UserFacingError, match="leaves its folder"):
        import_zip(archive)
    assert_nothing_installed()
    assert not list(tmp_path.parent.rglob("evil.txt"))


def test_zip_links_are_refused(tiny_model: Path, tmp_path: Path) -> None:
    with pytest.raises(UserFacingError, match="contains a link"):
        import_zip(_zip(tmp_path / "link.zip", _model_members(tiny_model, ""), links=("tokenizer_link",)))
    assert_nothing_installed()


def test_zip_that_is_not_a_model_or_not_a_zip(tmp_path: Path) -> None:
    with pytest.raises(UserFacingError, match=r"holds no genai_config\.json"):
        import_zip(_zip(tmp_path / "x.zip", {"a.txt": b"x"}))
    (tmp_path / "fake.zip").write_bytes(b"not a zip")
    with pytest.raises(UserFacingError, match="not a readable zip"):
        import_zip(tmp_path / "fake.zip")
    assert_nothing_installed()


def test_safe_relative_paths() -> None:
    assert safe_relative_path("a/b.onnx") and safe_relative_path("tokenizer.json")
    for bad in ("", "/a", "../a", "a/../b", "a//b", "./a", "C:x", "a\\b"):
        assert not safe_relative_path(bad), bad
