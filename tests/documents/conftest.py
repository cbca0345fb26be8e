from __future__ import annotations

from pathlib import Path

import pytest

from tests.documents.files import write_corpus


@pytest.fixture(scope="session")
def corpus_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus"))["field-notes.pdf"].parent


@pytest.fixture
def corpus(tmp_path: Path, corpus_template: Path) -> Path:
    """A fresh copy of the five planted documents (tests change and delete them)."""
    import shutil

    folder = tmp_path / "docs"
    shutil.copytree(corpus_template, folder)
    return folder


@pytest.fixture(scope="session")
def roomy_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model with an 8k context: its toy tokenizer spends ~3x the tokens of a real one on English."""
    from tests.helpers.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny-8k", context=8192)
