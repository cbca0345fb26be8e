"""The chat view's building blocks: Markdown rendering, code blocks, message widgets."""
