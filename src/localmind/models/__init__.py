"""Qt item models (QtCore only) that adapt core objects for the views."""
