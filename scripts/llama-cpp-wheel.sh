#!/usr/bin/env bash
# Build llama-cpp-python (the third-party OpenAI-compatible server that tests/server/test_third_party_server.py
# drives) from its PyPI source and install it, with its server extra, into the project's .venv.
# PyPI ships no wheel of it: this compiles llama.cpp (CPU only, unoptimised -O0: the test model is tiny and only
# the server's behaviour is tested). The wheel is kept in build/llama/wheels and reused on the next run.
#   scripts/llama-cpp-wheel.sh [VERSION]     (default 0.3.36, the version measured)
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-0.3.36}"
py=.venv/bin/python
out=build/llama/wheels
mkdir -p "$out"
if ! ls "$out"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
  export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
  export CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF \
-DGGML_LLAMAFILE=OFF -DLLAMA_CURL=OFF -DGGML_OPENMP=OFF -DGGML_CPU_REPACK=OFF \
-DCMAKE_C_FLAGS_RELEASE=-O0 -DCMAKE_CXX_FLAGS_RELEASE=-O0"
  nice -n 19 "$py" -m pip wheel --no-deps --no-binary llama-cpp-python -w "$out" "llama-cpp-python==$version"
fi
wheel=$(ls "$out"/llama_cpp_python-"$version"-*.whl | head -1)
"$py" -m pip install "$wheel[server]" gguf
