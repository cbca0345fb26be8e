"""dmgbuild settings for the LocalMind disk image (macOS only).

    dmgbuild -s packaging/macos/dmg_settings.py -D app=dist/LocalMind.app "LocalMind" dist/LocalMind-<v>-arm64.dmg

The window shows the app and a link to /Applications: drag one onto the other.
dmgbuild runs this file with ``defines`` (the -D values) in its namespace.
"""

import os.path

application = defines.get("app", "dist/LocalMind.app")  # type: ignore[name-defined]  # noqa: F821
app_name = os.path.basename(application)

format = "ULFO"  # LZFSE: smaller than zlib, opens on macOS 10.11 and later
filesystem = "APFS"
files = [application]
symlinks = {"Applications": "/Applications"}
hide_extensions = [app_name]
icon_locations = {app_name: (140, 160), "Applications": (420, 160)}
window_rect = ((200, 120), (560, 340))
default_view = "icon-view"
show_status_bar = False
show_toolbar = False
show_pathbar = False
icon_size = 112
text_size = 13
