"""The window's behaviour, one job per controller; app.py builds them and wires their signals.

Each controller gets what it works on at construction (the store, the chat session, the window, the task runner)
and never reaches back into the app object: ``loading`` (which model is loaded and what a failed load keeps),
``conversations`` (open, rename, delete, search, the message box's drafts), ``transfer`` (import and export of
chats), ``api_server`` (the local API server's start, restart and stop; the remote server's model list) and
``settings`` (the settings dialog and what applying it changes).
"""
