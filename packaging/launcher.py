"""The frozen app's entry script (PyInstaller runs this as ``__main__``).

The engine's child process is started with "spawn": in a frozen app that
re-runs this executable, and ``freeze_support`` turns that run into the child.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from localmind.cli import main

    sys.exit(main())
