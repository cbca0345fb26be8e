"""Model layouts other than onnxruntime-genai's own package: recognise them and make them loadable.

``variants`` (pure, no onnx import) is what the model manager codes against; ``genai_config`` infers the
onnxruntime-genai config, ``prepare`` builds a loadable folder without touching the user's, ``optimize``
applies the install-time graph rewrites.
"""
