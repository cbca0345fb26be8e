"""The starter model: a small model a build may carry inside the app, so a fresh install chats with no download.

The release workflow converts SmolLM2-135M-Instruct with onnxruntime-genai's model builder and bundles it as
``resources/starter-model/`` (``LOCALMIND_STARTER_MODEL=DIR make bundle``); builds without it simply have none.
The app loads it at first launch — when no model was ever loaded — straight from the (read-only) bundle.
"""

from __future__ import annotations

from pathlib import Path

from localmind.resources import resource_path

STARTER_FOLDER = "starter-model"


def starter_model_dir() -> Path | None:
    """The bundled starter model's folder, or None when this build carries none."""
    folder = resource_path(STARTER_FOLDER)
    return folder if (folder / "genai_config.json").is_file() else None
