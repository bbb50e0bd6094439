"""A run's configuration: run-level settings plus one config block per component.

::

    {"version": 2, "iterations": 3, "seed": 0, ...,
     "generator": {"name": "cascade"},   # or {"name": "paraphrase", "model": "default", "samples": 6}
     "aligner": {"name": "discriminative"},
     "filters": ["lax-cal", {"name": "relation", "accept": ["equivalence"]}]}

The run-level part is validated here (pydantic, unknown keys refused); each component block is
validated against its registered factory's options (:meth:`paraspan.registry.Registry.validate`)
when the run is checked (:func:`check`). The config is stored in the run store and compared on
``--resume`` (:func:`resume_differences`); a store written by an older paraspan (a flat config,
version 1) is migrated (:func:`migrate`), a newer one refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from paraspan.errors import ParaspanError

#: The version written into every stored config.
CONFIG_VERSION = 2

#: Run-level settings that a component factory may also take: filled into its block as defaults
#: when the factory has the option and the block leaves it out.
SHARED = ("seed", "threads")
#: Settings that do not change what a unit of work produces (a resumed run may change them).
NOT_RESUME = ("threads", "filters", "sentences_per_batch")


class ComponentSpec(BaseModel):
    """``{"name": NAME, **options}``: a registered component (or ``module:factory``) and its options."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **self.options}


class AugmentConfig(BaseModel):
    """Settings of an augmentation run (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = CONFIG_VERSION
    iterations: int = Field(3, ge=1)
    # an iteration that yields no output is tried again this many times with new samples before its
    # chain stops (the paper's beam always gave an output; sampling sometimes does not); None: the
    # generator's own default (Capabilities.retries: 1 for sentence paraphrases, 0 for substitutes)
    retries: int | None = Field(None, ge=0)
    keep_args: bool = False  # arguments as positive constraints (verbatim) instead of aligned
    require_args: bool = True  # drop outputs where an argument cannot be placed
    kinds: tuple[str, ...] = ("frame", "srl", "entity", "event")
    #: an input with more structures to augment than this is skipped with a note: each structure is
    #: scored over the whole sentence, so one long list of names would hold a worker for hours; None: no bound
    max_structures: int | None = Field(32, ge=1)
    candidates: int = Field(5, ge=1)  # candidates asked for per iteration (the paper aligned the top 20 of 30)
    seed: int = 0
    threads: int | None = 1  # CPU threads per worker (LLM and encoder)
    #: sentences a worker augments together: their structures' requests are one generator batch,
    #: so a decode wave starts full (fewer when there are too few sentences for the workers)
    sentences_per_batch: int = Field(4, ge=1)
    #: the default writes verified outputs: on FrameNet dev the paraphrase generator's candidates
    #: nearly all fail the checks (benchmarks/README.md, "Verified augmentation per generator")
    generator: ComponentSpec = ComponentSpec(name="cascade")
    aligner: ComponentSpec = ComponentSpec(name="discriminative")
    #: filters whose decisions every output records, besides the presets (paraspan.filter's specs)
    filters: tuple[str | dict[str, Any], ...] = ()
    #: a filter a candidate must pass to become an iteration's output (e.g. "verified"): the
    #: best-placed candidate that passes it is chosen; None: the best-placed candidate
    choose_by: str | dict[str, Any] | None = None

    @field_validator("generator", "aligner", mode="before")
    @classmethod
    def _spec(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value

    @field_validator("version")
    @classmethod
    def _version(cls, value: int) -> int:
        if value != CONFIG_VERSION:
            raise ValueError(f"config version {value} is not {CONFIG_VERSION}: migrate it first")
        return value

    def to_dict(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", exclude={"generator", "aligner"})
        data["generator"] = self.generator.to_dict()
        data["aligner"] = self.aligner.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "the run config") -> AugmentConfig:
        """Validate ``data`` (migrating an older version); errors name the key and the valid keys."""
        data = migrate(data, where=where)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise _config_error(exc, where) from None

    def component(self, which: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
        """``(name, options, defaults)`` of the ``generator`` or ``aligner`` block."""
        spec: ComponentSpec = getattr(self, which)
        defaults: dict[str, Any] = {key: getattr(self, key) for key in SHARED}
        if which == "generator":
            defaults["n"] = self.candidates
        return spec.name, spec.options, defaults


def _config_error(exc: ValidationError, where: str) -> ParaspanError:
    problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}" for err in exc.errors())
    keys = ", ".join(k for k in AugmentConfig.model_fields)
    return ParaspanError.from_code("E750", where=where, details=problems, keys=keys)


# ----------------------------------------------------------------------------- versions


#: Version-1 (flat) keys that became options of the paraphrase generator's block.
_V1_GENERATOR = {"model": "model", "samples": "samples", "constraint_sets": "constraint_sets", "top_k": "top_k",
                 "rescore_top": "rescore_top", "max_score": "max_score", "n_ctx": "n_ctx"}
_V1_DEFAULTS = {"samples": 6, "constraint_sets": 4, "top_k": 10, "rescore_top": None, "max_score": None,
                "n_ctx": 2048, "model": "default"}


def migrate(data: Mapping[str, Any], *, where: str = "the run config") -> dict[str, Any]:
    """A stored config in the current version's shape.

    Version 1 (paraspan ≤ 0.1 before the component blocks; no ``version`` key) had flat keys:
    ``generator``/``aligner`` names and the paraphrase generator's settings at the top, extra
    threshold rules in ``filters`` and learned-filter paths in ``learned_filters``.
    """
    data = dict(data)
    # version 1 wrote no version, and always wrote its flat keys (model, learned_filters)
    version = data.get("version", 1 if ("learned_filters" in data or "model" in data) else CONFIG_VERSION)
    if version == CONFIG_VERSION:
        return data
    if not isinstance(version, int) or version > CONFIG_VERSION:
        raise ParaspanError.from_code("E751", where=where, version=version, config_version=CONFIG_VERSION)
    out: dict[str, Any] = {"version": CONFIG_VERSION}
    generator: dict[str, Any] = {"name": data.get("generator", "paraphrase")}
    for old, new in _V1_GENERATOR.items():
        if old in data and (generator["name"] == "paraphrase") and data[old] != _V1_DEFAULTS.get(old, object()):
            generator[new] = data[old]
    out["generator"] = generator
    out["aligner"] = {"name": data.get("aligner", "discriminative")}
    filters: list[Any] = list(data.get("filters") or [])
    filters += [f"learned:{path}" for path in data.get("learned_filters") or []]
    out["filters"] = filters
    for key in ("iterations", "retries", "keep_args", "require_args", "kinds", "candidates", "seed", "threads"):
        if key in data:
            out[key] = data[key]
    return out


def resume_differences(old: AugmentConfig, new: AugmentConfig) -> list[str]:
    """Settings that differ between a stored run and a resumed one, as ``key: old → new``."""
    def view(config: AugmentConfig) -> dict[str, Any]:
        data = config.to_dict()
        for key in NOT_RESUME:
            data.pop(key, None)
        for block in ("generator", "aligner"):
            data[block] = {k: v for k, v in data[block].items() if k not in SHARED}
        return data

    a, b = view(old), view(new)
    return [f"{k}: {a.get(k)!r} → {b.get(k)!r}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


# ----------------------------------------------------------------------------- overrides


def apply_overrides(data: Mapping[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """``KEY.PATH=VALUE`` settings (``--set generator.frames=PATH``) applied to a config dict.

    The value is read as JSON when it parses (numbers, true/false, null, lists), else as text.
    """
    out = json.loads(json.dumps(dict(data)))  # a deep copy of plain values
    for item in overrides:
        key, sep, raw = item.partition("=")
        path = [p for p in key.strip().split(".") if p]
        if not sep or not path:
            raise ParaspanError.from_code("E752", problem=f"cannot read --set {item!r}",
                                          fix="write --set KEY=VALUE, e.g. --set generator.frames=PATH or --set"
                                          " iterations=2")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        node = out
        for part in path[:-1]:
            child = node.get(part)
            if isinstance(child, str) and part in ("generator", "aligner"):
                child = {"name": child}
            if not isinstance(child, dict):
                if child is not None:
                    raise ParaspanError.from_code("E752", problem=f"--set {key}: {part!r} is not a config block",
                                                  fix="set a key of generator, aligner or the run itself")
                child = {}
            node[part] = child
            node = child
        node[path[-1]] = value
    return out
