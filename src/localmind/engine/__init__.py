"""The inference engine, on onnxruntime-genai. No Qt here.

``LocalEngine`` runs the model in this process (the terminal uses it);
``EngineProcess`` runs the same engine in a child process so the window never
waits on the GIL (og's Generator holds it for a whole forward pass).
Both implement :class:`ChatEngine`.
"""

from localmind.engine.types import (
    ChatEngine,
    ChatMessage,
    EngineError,
    FinishReason,
    GenerationOptions,
    LoadInfo,
    LoadOptions,
    ModelLoadError,
    PromptTooLongError,
    StreamEvent,
    TextDelta,
    TurnFinished,
    TurnStats,
)

__all__ = [
    "ChatEngine",
    "ChatMessage",
    "EngineError",
    "FinishReason",
    "GenerationOptions",
    "LoadInfo",
    "LoadOptions",
    "ModelLoadError",
    "PromptTooLongError",
    "StreamEvent",
    "TextDelta",
    "TurnFinished",
    "TurnStats",
]
