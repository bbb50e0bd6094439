"""Named, lazily imported components (readers, writers, generators, aligners, filters, ...).

A registry maps a name to either a callable or a ``"module:attr"`` string that is imported on
first use, so listing or registering components does no work at import time. Third-party
packages add components through the entry point group ``paraspan.<registry name>`` (one line
in their ``pyproject.toml``); the group is scanned once per registry, on first use.

Components built from a config (generators, aligners, filters) follow spaCy's registered
factories: the factory's keyword parameters, with their type hints and defaults, *are* its
config schema. :meth:`Registry.build` validates an options dict against them with pydantic
(unknown options and wrong types are errors naming the valid ones) and calls the factory with
the validated values; :meth:`Registry.options` gives the schema to a CLI or a config check.
"""

from __future__ import annotations

import importlib
import inspect
import typing
from collections.abc import Callable, Iterator, Mapping
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


@dataclass(frozen=True)
class Option:
    """One configurable parameter of a factory."""

    name: str
    annotation: Any
    default: Any  # ``inspect.Parameter.empty`` when required

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


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
                self.entries[name] = Entry(name, func, description or _first_line(func.__doc__))
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
            raise ParaspanError.from_code("E001", kind=self.kind.rstrip("s"), name=name,
                                          choices=", ".join(self.names()) or "(none registered)")
        entry = self.entries[name]
        if isinstance(entry.target, str):
            module_name, _, attr = entry.target.partition(":")
            try:
                module = importlib.import_module(module_name)
                entry.target = getattr(module, attr)
            except (ImportError, AttributeError) as exc:
                raise ParaspanError.from_code("E002", kind=self.kind.rstrip("s"), name=name, target=entry.target,
                                              exc=exc) from None
        return entry.target  # type: ignore[return-value]

    # -- configured components
    def options(self, name: str) -> dict[str, Option]:
        """The config schema of ``name``'s factory: its keyword parameters."""
        return factory_options(self.get(name))  # type: ignore[arg-type]

    def validate(self, name: str, options: Mapping[str, Any] | None = None,
                 defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``options`` checked against ``name``'s factory (unknown keys, wrong types, missing
        required values are errors naming the valid options), with ``defaults`` filled in for
        the parameters the factory has and ``options`` leaves out. Returns the validated values
        of the given and defaulted options only (the factory's own defaults stay implicit)."""
        factory = self.get(name)
        return validate_options(factory, options or {}, defaults or {},  # type: ignore[arg-type]
                                where=f"{self.kind.rstrip('s')} {name!r}")

    def build(self, name: str, options: Mapping[str, Any] | None = None,
              defaults: Mapping[str, Any] | None = None) -> Any:
        """The component: ``name``'s factory called with the validated options."""
        values = self.validate(name, options, defaults)
        return self.get(name)(**values)  # type: ignore[operator]


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().split("\n", 1)[0]


def factory_options(factory: Callable[..., Any]) -> dict[str, Option]:
    """A factory's keyword parameters with their resolved type hints (``Any`` when unhinted)."""
    target = factory.__init__ if inspect.isclass(factory) else factory  # type: ignore[misc]
    try:
        hints = typing.get_type_hints(target)
    except Exception:  # hints that do not resolve (a missing optional import): validate as Any
        hints = {}
    out: dict[str, Option] = {}
    for param in inspect.signature(factory).parameters.values():
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if param.name == "self":
            continue
        out[param.name] = Option(param.name, hints.get(param.name, Any), param.default)
    return out


def with_defaults(factory: Callable[..., Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """Every option of ``factory``: the ``values`` given, the factory's defaults for the rest (a
    required option left out stays out)."""
    out: dict[str, Any] = {}
    for key, opt in factory_options(factory).items():
        if key in values:
            out[key] = values[key]
        elif not opt.required:
            out[key] = opt.default
    return out


def validate_options(factory: Callable[..., Any], options: Mapping[str, Any], defaults: Mapping[str, Any],
                     *, where: str) -> dict[str, Any]:
    """See :meth:`Registry.validate`."""
    from pydantic import ConfigDict, ValidationError, create_model

    schema = factory_options(factory)
    unknown = [k for k in options if k not in schema]
    if unknown:
        valid = ", ".join(schema) or "(none)"
        raise ParaspanError.from_code("E003", where=where, choices=", ".join(map(repr, unknown)), valid=valid)
    given = dict(options)
    for key, value in defaults.items():
        if key in schema and key not in given:
            given[key] = value
    fields: dict[str, Any] = {
        name: (opt.annotation, ... if opt.required else opt.default) for name, opt in schema.items()
    }
    model = create_model(f"Options_{where.replace(' ', '_')}",  # type: ignore[call-overload]
                         __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=True), **fields)
    try:
        checked = model.model_validate(given)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '(options)'}: {err['msg']}"
                             for err in exc.errors())
        shown = ", ".join(f"{n}: {_type_name(o.annotation)}" for n, o in schema.items())
        raise ParaspanError.from_code("E004", where=where, details=problems, choices=shown) from None
    return {k: getattr(checked, k) for k in given}


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")
