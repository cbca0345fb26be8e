"""A working keyring kept in memory, for tests (the machines running them have no keyring)."""

from __future__ import annotations

import keyring.backend
import keyring.errors
from jaraco.classes import properties


class MemoryKeyring(keyring.backend.KeyringBackend):
    @properties.classproperty
    def priority(cls) -> float:
        # Not viable for keyring's own backend choice: defining this class must not make it everyone's keyring.
        raise RuntimeError("test backend, set explicitly only")

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.store:
            raise keyring.errors.PasswordDeleteError("not there")
        del self.store[(service, username)]
