"""A data folder that is a file: one line for every terminal command, not a traceback (``docs list`` raised
FileExistsError) nor an OS error's wording."""

from __future__ import annotations

from pathlib import Path

import pytest

from localmind import paths
from localmind.cli import main


@pytest.mark.parametrize("command", [["docs", "list"], ["export", "--list"], ["models", "list"]])
def test_a_data_folder_that_is_a_file_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("mine", encoding="utf-8")
    try:
        assert main(["--data-dir", str(not_a_folder), *command]) == 1
    finally:
        paths.set_data_dir(None)
    err = capsys.readouterr().err
    assert err == (
        f"localmind: The data folder {not_a_folder} is a file, not a folder. Pick a folder with --data-dir "
        "(or $LOCALMIND_DATA_DIR); LocalMind creates it when it is missing.\n"
    )
    assert not_a_folder.read_text(encoding="utf-8") == "mine"
