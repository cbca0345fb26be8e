"""The request bodies' validator is LocalMind's shared one (``localmind.schema``: the settings file and the import
format use it too); this name stays for the server's modules and tests."""

from __future__ import annotations

from localmind.schema import Invalid, Spec, json_schema, parse, spec

__all__ = ["Invalid", "Spec", "json_schema", "parse", "spec"]
