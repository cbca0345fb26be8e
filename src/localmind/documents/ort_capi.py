"""A small ONNX Runtime inference session over ONNX Runtime's C API (ctypes), for the embedding model.

Why not ``onnxruntime.InferenceSession``: the frozen app ships ONNX Runtime's shared library (onnxruntime-genai
loads it) but not ONNX Runtime's 36 MB Python binding, which would break the installer's size budget. The embedding
model needs little: load a graph, feed int64 tensors, read float32 outputs. :class:`CApiSession` does that with the
library the app already carries, and offers the part of ``InferenceSession``'s interface that the embedder uses.

``OrtApi`` is a table of function pointers that ONNX Runtime only ever appends to, so an entry's position never
changes between versions; the positions below are those of the C API header (``onnxruntime_c_api.h``), and
``tests/documents/test_ort_capi.py`` checks every call against the Python binding's results.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import importlib.util
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

API_VERSION = 1  # every function used here exists since the first version of the C API

# Positions in struct OrtApi (append-only).
_GET_ERROR_MESSAGE = 2
_CREATE_ENV = 3
_CREATE_SESSION = 7
_RUN = 9
_CREATE_SESSION_OPTIONS = 10
_SET_SESSION_LOG_SEVERITY_LEVEL = 22
_SET_INTRA_OP_NUM_THREADS = 24
_SESSION_GET_INPUT_COUNT = 30
_SESSION_GET_OUTPUT_COUNT = 31
_SESSION_GET_INPUT_NAME = 36
_SESSION_GET_OUTPUT_NAME = 37
_CREATE_TENSOR_WITH_DATA = 49
_GET_TENSOR_MUTABLE_DATA = 51
_GET_TENSOR_ELEMENT_TYPE = 60
_GET_DIMENSIONS_COUNT = 61
_GET_DIMENSIONS = 62
_GET_TENSOR_TYPE_AND_SHAPE = 65
_CREATE_CPU_MEMORY_INFO = 69
_ALLOCATOR_FREE = 76
_GET_ALLOCATOR_WITH_DEFAULT_OPTIONS = 78
_RELEASE_ENV = 92
_RELEASE_STATUS = 93
_RELEASE_MEMORY_INFO = 94
_RELEASE_SESSION = 95
_RELEASE_VALUE = 96
_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO = 99
_RELEASE_SESSION_OPTIONS = 100
_TABLE_SIZE = 101

# ONNXTensorElementDataType and the numpy types they map to (what an embedding model takes and gives).
_ELEMENT_TYPES: dict[int, type[np.generic]] = {
    1: np.float32,
    6: np.int32,
    7: np.int64,
    10: np.float16,
    11: np.float64,
}
_TYPE_OF_DTYPE = {np.dtype(v): k for k, v in _ELEMENT_TYPES.items()}
_LOG_ERROR = 3  # ORT_LOGGING_LEVEL_ERROR
_ARENA_ALLOCATOR, _MEM_TYPE_DEFAULT = 1, 0

P = ctypes.c_void_p
PP = ctypes.POINTER(ctypes.c_void_p)


class OrtError(RuntimeError):
    """ONNX Runtime refused a call; the message is its own."""


def library_candidates() -> list[Path]:
    """Where ONNX Runtime's shared library may be: the onnxruntime package's capi folder, as onnxruntime-genai
    finds it (also inside the frozen app), then the one onnxruntime-genai recorded in ORT_LIB_PATH."""
    found: list[Path] = []
    spec = importlib.util.find_spec("onnxruntime")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        folders.append(os.path.join(frozen, "onnxruntime"))
    pattern = {"win32": "onnxruntime.dll", "darwin": "libonnxruntime*.dylib"}.get(sys.platform, "libonnxruntime.so*")
    for folder in folders:
        found += sorted(Path(p) for p in glob.glob(os.path.join(folder, "capi", pattern)))
    recorded = os.environ.get("ORT_LIB_PATH")
    if recorded:
        found.append(Path(recorded))
    return [p for i, p in enumerate(found) if p.is_file() and p not in found[:i]]


class _Api:
    """The function table, with the signatures of the entries used here."""

    def __init__(self, library: Path) -> None:
        lib = ctypes.CDLL(str(library))
        get_base = lib.OrtGetApiBase
        get_base.restype = ctypes.POINTER(P * 2)  # struct OrtApiBase { GetApi, GetVersionString }
        base = get_base().contents
        get_api = ctypes.CFUNCTYPE(P, ctypes.c_uint32)(base[0])
        version = ctypes.CFUNCTYPE(ctypes.c_char_p)(base[1])
        self.version = (version() or b"").decode()
        table = get_api(API_VERSION)
        if not table:
            raise OrtError(f"ONNX Runtime {self.version} at {library} offers no C API version {API_VERSION}")
        self._table = ctypes.cast(table, ctypes.POINTER(P * _TABLE_SIZE)).contents
        self.library = library

    def fn(self, index: int, restype: Any, *argtypes: Any) -> Any:
        address = self._table[index]
        if not address:
            raise OrtError(f"ONNX Runtime {self.version} lacks C API function #{index}")
        return ctypes.CFUNCTYPE(restype, *argtypes)(address)


_api: _Api | None = None
_api_lock = threading.Lock()


def api() -> _Api:
    """The C API of the first ONNX Runtime library found (loaded once per process)."""
    global _api
    with _api_lock:
        if _api is None:
            candidates = library_candidates()
            if not candidates:
                raise OrtError("ONNX Runtime's library was not found (the onnxruntime package is missing)")
            _api = _Api(candidates[0])
        return _api


class _Calls:
    """The C functions the session uses, bound once per process."""

    def __init__(self, a: _Api) -> None:
        status = P  # OrtStatus*: NULL means success
        self.error_message = a.fn(_GET_ERROR_MESSAGE, ctypes.c_char_p, P)
        self.release_status = a.fn(_RELEASE_STATUS, None, P)
        self.create_env = a.fn(_CREATE_ENV, status, ctypes.c_int, ctypes.c_char_p, PP)
        self.release_env = a.fn(_RELEASE_ENV, None, P)
        self.create_options = a.fn(_CREATE_SESSION_OPTIONS, status, PP)
        self.release_options = a.fn(_RELEASE_SESSION_OPTIONS, None, P)
        self.set_threads = a.fn(_SET_INTRA_OP_NUM_THREADS, status, P, ctypes.c_int)
        self.set_log_level = a.fn(_SET_SESSION_LOG_SEVERITY_LEVEL, status, P, ctypes.c_int)
        path_type = ctypes.c_wchar_p if sys.platform == "win32" else ctypes.c_char_p  # ORTCHAR_T
        self.create_session = a.fn(_CREATE_SESSION, status, P, path_type, P, PP)
        self.release_session = a.fn(_RELEASE_SESSION, None, P)
        count = ctypes.POINTER(ctypes.c_size_t)
        self.input_count = a.fn(_SESSION_GET_INPUT_COUNT, status, P, count)
        self.output_count = a.fn(_SESSION_GET_OUTPUT_COUNT, status, P, count)
        name_out = ctypes.POINTER(ctypes.c_void_p)
        self.input_name = a.fn(_SESSION_GET_INPUT_NAME, status, P, ctypes.c_size_t, P, name_out)
        self.output_name = a.fn(_SESSION_GET_OUTPUT_NAME, status, P, ctypes.c_size_t, P, name_out)
        self.default_allocator = a.fn(_GET_ALLOCATOR_WITH_DEFAULT_OPTIONS, status, PP)
        self.allocator_free = a.fn(_ALLOCATOR_FREE, status, P, P)
        self.cpu_memory_info = a.fn(_CREATE_CPU_MEMORY_INFO, status, ctypes.c_int, ctypes.c_int, PP)
        self.release_memory_info = a.fn(_RELEASE_MEMORY_INFO, None, P)
        shape = ctypes.POINTER(ctypes.c_int64)
        self.create_tensor = a.fn(
            _CREATE_TENSOR_WITH_DATA, status, P, P, ctypes.c_size_t, shape, ctypes.c_size_t, ctypes.c_int, PP
        )
        self.release_value = a.fn(_RELEASE_VALUE, None, P)
        self.run = a.fn(_RUN, status, P, P, ctypes.POINTER(ctypes.c_char_p), PP, ctypes.c_size_t,
                        ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, PP)  # fmt: skip
        self.tensor_data = a.fn(_GET_TENSOR_MUTABLE_DATA, status, P, PP)
        self.type_and_shape = a.fn(_GET_TENSOR_TYPE_AND_SHAPE, status, P, PP)
        self.release_type_and_shape = a.fn(_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO, None, P)
        self.element_type = a.fn(_GET_TENSOR_ELEMENT_TYPE, status, P, ctypes.POINTER(ctypes.c_int))
        self.dims_count = a.fn(_GET_DIMENSIONS_COUNT, status, P, count)
        self.dims = a.fn(_GET_DIMENSIONS, status, P, shape, ctypes.c_size_t)

    def check(self, status: int | None) -> None:
        if status:
            message = (self.error_message(status) or b"").decode("utf-8", "replace")
            self.release_status(status)
            raise OrtError(message)


_calls: _Calls | None = None
_env: ctypes.c_void_p | None = None


def _runtime() -> tuple[_Calls, ctypes.c_void_p]:
    """The bound calls and the process's one OrtEnv (ONNX Runtime allows one per process; it is never released)."""
    global _calls, _env
    a = api()
    with _api_lock:
        if _calls is None or _env is None:
            calls = _Calls(a)
            env = ctypes.c_void_p()
            calls.check(calls.create_env(_LOG_ERROR, b"localmind-embedder", ctypes.byref(env)))
            _calls, _env = calls, env
        return _calls, _env


class CApiSession:
    """An inference session on the CPU: ``run(output_names, feeds)`` as ``onnxruntime.InferenceSession.run``."""

    def __init__(self, model: Path | str, threads: int | None = None) -> None:
        calls, env = _runtime()
        self._calls = calls
        options = ctypes.c_void_p()
        calls.check(calls.create_options(ctypes.byref(options)))
        self._session = ctypes.c_void_p()
        try:
            calls.check(calls.set_log_level(options, _LOG_ERROR))
            if threads:
                calls.check(calls.set_threads(options, int(threads)))
            path: Any = str(model) if sys.platform == "win32" else os.fsencode(str(model))
            calls.check(calls.create_session(env, path, options, ctypes.byref(self._session)))
        finally:
            calls.release_options(options)
        memory = ctypes.c_void_p()
        calls.check(calls.cpu_memory_info(_ARENA_ALLOCATOR, _MEM_TYPE_DEFAULT, ctypes.byref(memory)))
        self._memory = memory
        self.input_names = self._names(calls.input_count, calls.input_name)
        self.output_names = self._names(calls.output_count, calls.output_name)

    def _names(self, count_fn: Any, name_fn: Any) -> list[str]:
        calls = self._calls
        allocator = ctypes.c_void_p()
        calls.check(calls.default_allocator(ctypes.byref(allocator)))
        count = ctypes.c_size_t()
        calls.check(count_fn(self._session, ctypes.byref(count)))
        names = []
        for index in range(count.value):
            pointer = ctypes.c_void_p()
            calls.check(name_fn(self._session, index, allocator, ctypes.byref(pointer)))
            names.append(ctypes.string_at(pointer.value or 0).decode("utf-8"))
            calls.check(calls.allocator_free(allocator, pointer))
        return names

    def run(self, output_names: Sequence[str] | None, feeds: Mapping[str, Any]) -> list[np.ndarray]:
        """Run the graph; every output is copied into a numpy array that the caller owns."""
        calls = self._calls
        wanted = list(output_names) if output_names else list(self.output_names)
        arrays = [np.ascontiguousarray(value) for value in feeds.values()]  # kept alive until Run returns
        values = (ctypes.c_void_p * len(arrays))()
        outputs = (ctypes.c_void_p * len(wanted))()
        try:
            for i, array in enumerate(arrays):
                kind = _TYPE_OF_DTYPE.get(array.dtype)
                if kind is None:
                    raise OrtError(f"unsupported input type {array.dtype}")
                shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
                handle = ctypes.c_void_p()
                calls.check(
                    calls.create_tensor(
                        self._memory,
                        array.ctypes.data_as(ctypes.c_void_p),
                        array.nbytes,
                        shape,
                        array.ndim,
                        kind,
                        ctypes.byref(handle),
                    )
                )
                values[i] = handle.value
            input_names = (ctypes.c_char_p * len(arrays))(*(name.encode() for name in feeds))
            output_list = (ctypes.c_char_p * len(wanted))(*(name.encode() for name in wanted))
            calls.check(
                calls.run(
                    self._session,
                    None,
                    input_names,
                    ctypes.cast(values, PP),
                    len(arrays),
                    output_list,
                    len(wanted),
                    ctypes.cast(outputs, PP),
                )
            )
            return [self._to_numpy(outputs[i]) for i in range(len(wanted))]
        finally:
            for value in list(values) + list(outputs):
                if value:
                    calls.release_value(value)

    def _to_numpy(self, value: int | None) -> np.ndarray:
        calls = self._calls
        info = ctypes.c_void_p()
        calls.check(calls.type_and_shape(value, ctypes.byref(info)))
        try:
            kind = ctypes.c_int()
            calls.check(calls.element_type(info, ctypes.byref(kind)))
            ndim = ctypes.c_size_t()
            calls.check(calls.dims_count(info, ctypes.byref(ndim)))
            dims = (ctypes.c_int64 * max(ndim.value, 1))()
            calls.check(calls.dims(info, dims, ndim.value))
        finally:
            calls.release_type_and_shape(info)
        dtype = _ELEMENT_TYPES.get(kind.value)
        if dtype is None:
            raise OrtError(f"unsupported output type {kind.value}")
        shape = tuple(dims[i] for i in range(ndim.value))
        data = ctypes.c_void_p()
        calls.check(calls.tensor_data(value, ctypes.byref(data)))
        count = int(np.prod(shape)) if shape else 1
        if count == 0:
            return np.zeros(shape, dtype=dtype)
        raw = ctypes.string_at(data.value or 0, count * np.dtype(dtype).itemsize)  # a copy the caller owns
        return np.frombuffer(bytearray(raw), dtype=np.dtype(dtype)).reshape(shape)

    def close(self) -> None:
        if self._session:
            self._calls.release_session(self._session)
            self._session = ctypes.c_void_p()
        if self._memory:
            self._calls.release_memory_info(self._memory)
            self._memory = ctypes.c_void_p()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter exit the library may already be gone
            self.close()
