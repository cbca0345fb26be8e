"""``python -m tests.helpers.hooked_app ARGS``: ``localmind ARGS`` with the end-to-end tests' switches (app_hooks.py).

Kept this small on purpose: the engine's child process is started with "spawn", which imports this module again.
"""

import multiprocessing

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from tests.helpers.app_hooks import main

    raise SystemExit(main())
