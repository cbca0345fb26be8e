"""PyInstaller hook: onnxruntime-genai finds ONNX Runtime at run time, so analysis alone misses it.

og's ``__init__`` calls ``importlib.util.find_spec("onnxruntime")`` and globs
``onnxruntime/capi/libonnxruntime.so*`` (Linux) or ``libonnxruntime*.dylib``
(macOS): the ``onnxruntime`` package must be importable in the bundle and its
shared libraries must sit in ``onnxruntime/capi``. The Windows ML build ships
``onnxruntime.dll`` and ``DirectML.dll`` inside ``onnxruntime_genai`` itself,
loaded by name, so those are collected from there. The model builder
(``onnxruntime_genai.models``: torch, transformers, onnx) is never used by the app.
"""

from PyInstaller.utils.hooks import collect_dynamic_libs

LIBRARY_PATTERNS = ["*.so", "*.so.*", "*.dylib", "*.dll"]

hiddenimports = ["onnxruntime"]
excludedimports = ["onnxruntime_genai.models"]
binaries = collect_dynamic_libs("onnxruntime_genai", search_patterns=LIBRARY_PATTERNS)
