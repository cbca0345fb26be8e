"""QObjects that live in worker threads (QtCore only; they never touch widgets)."""
