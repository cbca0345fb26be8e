"""Shared helpers for the packaging tests: external tools, and the rule for when they are missing."""

from __future__ import annotations

import os
import shutil

import pytest

# CI sets this so a missing tool fails the run instead of skipping the check.
REQUIRE_TOOLS = "LOCALMIND_REQUIRE_PACKAGING_TOOLS"


def require_tool(name: str, debian_package: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    message = f"{name} is not installed (Debian/Ubuntu: apt-get install {debian_package})"
    if os.environ.get(REQUIRE_TOOLS):
        pytest.fail(message)
    pytest.skip(message)
