# windowsml (Windows ML's execution-provider catalog, ctypes over the Windows App SDK runtime): its DLLs and data
# are loaded by path at run time, which PyInstaller cannot see. Only the Windows WinML build installs it.
from PyInstaller.utils.hooks import collect_data_files, collect_dynamic_libs, copy_metadata

binaries = collect_dynamic_libs("windowsml")
datas = collect_data_files("windowsml") + copy_metadata("windowsml")
