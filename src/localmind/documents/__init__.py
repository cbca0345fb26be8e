"""Chat with your own documents: extraction, chunking, the index (FTS5 + vectors) and retrieval. No Qt.

The index lives in its own SQLite database in the data folder (``paths.documents_index_path()``);
nothing here opens a network connection.
"""

from __future__ import annotations
