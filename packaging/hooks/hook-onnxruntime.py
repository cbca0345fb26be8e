"""PyInstaller hook (replaces the contrib one): ONNX Runtime's shared libraries, not its Python binding.

og only needs ``libonnxruntime.so.<version>`` / ``libonnxruntime*.dylib`` /
``onnxruntime.dll`` (and the provider libraries beside them) in
``onnxruntime/capi``. The contrib hook's default pattern ``lib*.so`` misses the
versioned Linux library. The Python binding (``onnxruntime_pybind11_state``,
about 35 MB) and the training, tools and transformers helpers are left out by
the spec; ``onnxruntime/__init__.py`` stays so that ``find_spec`` finds the package.
"""

from PyInstaller.utils.hooks import collect_dynamic_libs

binaries = [
    (src, dest)
    for src, dest in collect_dynamic_libs("onnxruntime", search_patterns=["*.so", "*.so.*", "*.dylib", "*.dll"])
    if "pybind11_state" not in src
]
excludedimports = [
    "onnxruntime.capi._pybind_state",
    "onnxruntime.capi.onnxruntime_pybind11_state",
    "onnxruntime.capi.onnxruntime_inference_collection",
    "onnxruntime.backend",
    "onnxruntime.datasets",
    "onnxruntime.quantization",
    "onnxruntime.tools",
    "onnxruntime.training",
    "onnxruntime.transformers",
]
