"""Install-time graph rewrites for onnx-community / Optimum exports: what measurably pays off on a CPU.

Kept: ``accuracy_level=4`` on every MatMulNBits node (4-bit weights). Without the attribute onnxruntime
dequantizes to fp32 and runs a plain fp32 GEMM; level 4 lets it quantize activations to int8 and use its
int8 dot-product kernels, which is what og's own model builder sets for CPU. Measured (notes, 2 threads):
SmolLM2-135M shape 31.7 -> 51.6 tok/s decode, Qwen3-0.6B shape 10.0 -> 23.1. bench/variants.py re-measures.
Outputs differ from the unmodified graph only by the int8 rounding of activations (greedy tokens are
checked against onnxruntime on the rewritten file itself).

The rewrite touches node attributes only (onnx_proto streams the file and re-encodes just those nodes); the
external data file is not read, and the new graph sits next to a link to it, so for exports that keep their
weights outside the .onnx nothing the size of the weights is written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from localmind.engine.types import ModelLoadError

Progress = Callable[[float, str], None]
ACCURACY_LEVEL = 4


@dataclass(frozen=True)
class RewriteReport:
    written: bool  # False: nothing to change, ``dst`` was not written (link the original instead)
    changed_nodes: int
    notes: tuple[str, ...] = ()


def rewrite_graph(src: Path, dst: Path, *, progress: Progress | None = None) -> RewriteReport:
    """Write ``src`` with the kept rewrites to ``dst`` (external data references stay relative)."""
    from localmind.engine.formats.onnx_proto import OnnxFormatError, set_node_attribute

    def report(fraction: float) -> None:
        if progress is not None:
            progress(fraction, "Tuning the model for this computer")

    report(0.0)
    try:
        changed = set_node_attribute(
            src, dst, "MatMulNBits", "com.microsoft", "accuracy_level", ACCURACY_LEVEL, progress=report
        )
    except OnnxFormatError as exc:
        raise ModelLoadError(
            f"{src.name} in {src.parent} is not a readable ONNX file: {exc}",
            hint="The download may be incomplete. Download the model again, or pick another folder.",
        ) from exc
    report(1.0)
    if not changed:
        return RewriteReport(False, 0)
    return RewriteReport(True, changed, (f"accuracy_level={ACCURACY_LEVEL} on {changed} MatMulNBits nodes",))


__all__ = ["ACCURACY_LEVEL", "RewriteReport", "rewrite_graph"]
