# syntax=docker/dockerfile:1
# LocalMind's API server with one model baked in (docs/deploy.md):
#
#   docker build --build-arg MODEL=qwen2.5-0.5b-instruct -t localmind-server .
#   docker run -p 8000:8000 -e LOCALMIND_API_KEY=change-me localmind-server
#
# MODEL is a catalog id or a Hugging Face repo (owner/name), as `localmind models download` takes it. A gated
# model needs a token: docker build --secret id=hf_token,env=HF_TOKEN ...
# The server listens on all interfaces inside the container, so it refuses to start without LOCALMIND_API_KEY.
# It honours PORT (scale-to-zero hosts set it).

ARG PYTHON_VERSION=3.12

# -- 1. the program: a virtual environment without Qt (the server never imports it) --------------------------------
FROM python:${PYTHON_VERSION}-slim AS app
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
# --no-deps and an explicit list: the package's PySide6 dependency is for the window, ~150 MB the server never loads.
RUN python -m venv /opt/localmind \
 && /opt/localmind/bin/pip install --no-deps . \
 && /opt/localmind/bin/pip install "onnxruntime-genai>=0.18.0,<0.19" "huggingface_hub>=2.4,<3" "httpx2>=2,<3" \
      "keyring>=25" "platformdirs>=4" "numpy>=1.24" "starlette>=0.40" "uvicorn>=0.30"

# -- 2. the model: downloaded and verified file by file at build time ----------------------------------------------
FROM app AS model
ARG MODEL=qwen2.5-0.5b-instruct
ENV LOCALMIND_DATA_DIR=/data
RUN --mount=type=secret,id=hf_token,required=false \
    (cat /run/secrets/hf_token 2>/dev/null || true) \
      | /opt/localmind/bin/localmind models download "$MODEL" --token-stdin \
 && /opt/localmind/bin/localmind models list \
 && find /data/models -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' > /data/served-model \
 && test "$(wc -l < /data/served-model)" -eq 1 \
 && rm -rf /data/models/.staging /data/models/.trash

# -- 3. the image: slim, non-root, read-only model ------------------------------------------------------------------
FROM python:${PYTHON_VERSION}-slim
# onnxruntime's CPU kernels use OpenMP.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libgomp1 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --create-home --home-dir /home/localmind localmind
COPY --from=app /opt/localmind /opt/localmind
COPY --from=model /data /data
ENV PATH=/opt/localmind/bin:$PATH \
    LOCALMIND_DATA_DIR=/data \
    PORT=8000 \
    PYTHONUNBUFFERED=1 \
    ORT_DISABLE_TELEMETRY=1
USER 10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen(f\"http://127.0.0.1:{os.environ['PORT']}/health\", timeout=4)"]
# exec: the server is PID 1 and gets SIGTERM directly (a graceful stop on scale-down).
CMD ["sh", "-c", "exec localmind serve --model \"$(cat /data/served-model)\" --host 0.0.0.0 --port \"$PORT\""]
