"""LocalMind's HTTP API: OpenAI-compatible chat and completions, plus the reference article's ``/generate``.

No Qt here. ``localmind serve`` runs it headless with the engine in a child process; the app runs the same
server around the engine its window already has. See ``app.create_app``.
"""
