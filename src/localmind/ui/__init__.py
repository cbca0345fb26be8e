"""Qt widgets of the app window."""
