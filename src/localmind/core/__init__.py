"""The Qt-free heart of LocalMind: conversations, their storage, and import/export."""
