"""View-models (QtCore only): the chat session and the Qt item models that adapt core objects for the views.

Named so because everywhere else in LocalMind a "model" is a language model.
"""
