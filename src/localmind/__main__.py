import multiprocessing

from localmind.cli import main

# The guard matters: the engine's child process is started with "spawn", which re-imports this module.
if __name__ == "__main__":
    multiprocessing.freeze_support()
    raise SystemExit(main())
