"""Named, lazily imported components (readers, writers, generators, filters, ...).

A registry maps a name to either a callable or a ``"module:attr"`` string that is imported
on first use, so listing or registering components does no work at import time. Third-party
packages can add components through the entry point group ``paraspan.<registry name>``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from paraspan.errors import ParaspanError

T = TypeVar("T")


@dataclass
class Entry:
    name: str
    target: str | Callable[..., Any]
    description: str = ""


@dataclass
class Registry(Generic[T]):
    """A name → component table; components are resolved (imported) on ``get``."""

    kind: str
    entries: dict[str, Entry] = field(default_factory=dict)
    _entry_points_loaded: bool = False

    def register(
        self, name: str, target: str | Callable[..., Any] | None = None, description: str = ""
    ) -> Any:
        """Register ``target`` under ``name``; without a target, act as a decorator."""
        if target is None:

            def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
                self.entries[name] = Entry(name, func, description or (func.__doc__ or "").strip())
                return func

            return decorator
        self.entries[name] = Entry(name, target, description)
        return target

    def _load_entry_points(self) -> None:
        if self._entry_points_loaded:
            return
        self._entry_points_loaded = True
        for ep in entry_points(group=f"paraspan.{self.kind}"):
            self.entries.setdefault(ep.name, Entry(ep.name, ep.value, ""))

    def names(self) -> list[str]:
        self._load_entry_points()
        return sorted(self.entries)

    def __contains__(self, name: object) -> bool:
        self._load_entry_points()
        return name in self.entries

    def __iter__(self) -> Iterator[Entry]:
        self._load_entry_points()
        return iter(self.entries[n] for n in sorted(self.entries))

    def get(self, name: str) -> T:
        self._load_entry_points()
        if name not in self.entries:
            raise ParaspanError(
                f"unknown {self.kind} {name!r}",
                f"choose one of: {', '.join(self.names()) or '(none registered)'}",
                code="E001",
            )
        entry = self.entries[name]
        if isinstance(entry.target, str):
            module_name, _, attr = entry.target.partition(":")
            module = importlib.import_module(module_name)
            entry.target = getattr(module, attr)
        return entry.target  # type: ignore[return-value]
