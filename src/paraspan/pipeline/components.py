"""Building a run's components from its config blocks, through their registries.

A block's ``name`` is a registered name (``paraspan.generate.base.generators``,
``paraspan.align.base.aligners``, ``paraspan.filter.filters``; plugins add theirs with an
entry point) or ``module:factory`` for a factory not registered anywhere. Either way the
factory's keyword parameters are the block's options (validated by
:meth:`paraspan.registry.Registry.validate`); ``seed`` and ``threads`` come from the run when a
factory takes them and the block leaves them out.
"""

from __future__ import annotations

import importlib
from typing import Any

from paraspan.errors import ParaspanError
from paraspan.generate.base import Generator, GeneratorFactory
from paraspan.pipeline.config import AugmentConfig
from paraspan.registry import Registry, factory_options, validate_options, with_defaults


def _import(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ParaspanError.from_code("E730", spec=spec, exc=exc) from None


def _registry(which: str) -> Registry[Any]:
    if which == "generator":
        from paraspan.generate.base import generators

        return generators
    from paraspan.align.base import aligners

    return aligners()


def _factory(which: str, name: str) -> Any:
    return _import(name) if ":" in name else _registry(which).get(name)


def generator_options(name: str) -> set[str]:
    """The option names of generator ``name``'s factory."""
    return set(factory_options(_factory("generator", name)))


def resolved_options(config: AugmentConfig, which: str) -> dict[str, Any]:
    """Every option of the ``generator`` or ``aligner`` block's factory: the block's values
    (validated, run-level defaults filled in) and the factory's defaults for the rest."""
    name, options, defaults = config.component(which)
    factory = _factory(which, name)
    values = validate_options(factory, options, defaults, where=f"{which} {name!r}")
    if isinstance(factory, GeneratorFactory):  # blocks inside the block (a cascade's members)
        factory.check_options(values)
    return with_defaults(factory, values)


def _generator_factory(config: AugmentConfig) -> tuple[Any, dict[str, Any]]:
    """The config's generator factory and its validated options, for the hooks read without building it."""
    name, options, defaults = config.component("generator")
    factory = _factory("generator", name)
    return factory, validate_options(factory, options, defaults, where=f"generator {name!r}")


def generator_relation(block: str | dict[str, Any] | None) -> str:
    """What the outputs of the generator of a raw config block are to their sources
    (:meth:`paraspan.generate.base.GeneratorFactory.relation`): ``equivalence`` for a factory that does
    not say, or for a block the config's check will refuse anyway (an unknown name)."""
    block = {"name": block} if isinstance(block, str) else dict(block or {})
    name = block.pop("name", None)
    if not isinstance(name, str):
        return "equivalence"
    try:
        factory = _factory("generator", name)
    except ParaspanError:
        return "equivalence"
    return factory.relation(with_defaults(factory, block)) if isinstance(factory, GeneratorFactory) else "equivalence"


def generator_versions(config: AugmentConfig) -> dict[str, str]:
    """The versions of the code the config's generator runs (its rules), without building it:
    :func:`paraspan.generate.base.code_versions`."""
    from paraspan.generate.base import code_versions

    return code_versions(*_generator_factory(config))


def generator_reads_corpus(config: AugmentConfig) -> bool:
    """Whether the config's generator draws on the other sentences of its run, without building
    it: :func:`paraspan.generate.base.reads_corpus`."""
    from paraspan.generate.base import reads_corpus

    return reads_corpus(*_generator_factory(config))


def resolve(config: AugmentConfig) -> AugmentConfig:
    """``config`` with every component block validated and completed with its factory's defaults."""
    data = config.to_dict()
    for which in ("generator", "aligner"):
        data[which] = {"name": getattr(config, which).name,
                       **_json_safe(resolved_options(config, which))}
    return AugmentConfig.from_dict(data)


def check(config: AugmentConfig) -> AugmentConfig:
    """:func:`resolve`, and the filters built once (a bad rule or filter file fails here, before
    any model loads): what a run uses and its store records."""
    resolved = resolve(config)
    filters = build_filters(resolved)
    check_unjudged_rules([*filters, build_chooser(resolved, filters)])
    return resolved


def check_unjudged_rules(filters: list[Any]) -> None:
    """Every name in a filter's ``unjudged_rules`` (its parts' too) is a hand-written rewrite rule:
    a misspelt one ("it-clef") would leave every cleft judged, silently. Checked here, where the
    pipeline sees both packages (the filters cannot import the rules: ``generate`` imports ``filter``)."""
    from paraspan.filter.combine import unjudged_rules
    from paraspan.generate.rewrite.rules import rewrite_rules

    known = set(rewrite_rules.names())
    for flt in filters:
        unknown = sorted(unjudged_rules(flt) - known) if flt is not None else []
        if unknown:
            raise ParaspanError.from_code("E847", names=", ".join(unknown), known=", ".join(sorted(known)))


def asked_checks(config: AugmentConfig) -> list[str]:
    """The names the config's own checks record their decisions under: each filter's parts, then
    the filter, then the chooser's (the presets every run records are left out unless asked for)."""
    from paraspan.filter import build_filter, build_filters
    from paraspan.filter.combine import recorded_names

    built = build_filters(list(config.filters))
    if config.choose_by is not None:
        built.append(build_filter(config.choose_by))
    names: list[str] = []
    for flt in built:
        names.extend(n for n in recorded_names(flt) if n not in names)
    return names


def _json_safe(values: dict[str, Any]) -> dict[str, Any]:
    import json

    return json.loads(json.dumps(values, default=str))


def build_generator(config: AugmentConfig) -> tuple[Any, dict[str, Any]]:
    """The generator and a description of its models (recorded in provenance)."""
    name, options, defaults = config.component("generator")
    factory = _factory("generator", name)
    values = validate_options(factory, options, defaults, where=f"generator {name!r}")
    generator = factory(**values)
    if not isinstance(generator, Generator):
        raise ParaspanError.from_code("E733", name=name)
    return generator, {"generator": name, **dict(getattr(generator, "info", None) or {})}


def build_aligner(config: AugmentConfig) -> tuple[Any, dict[str, Any]]:
    name, options, defaults = config.component("aligner")
    factory = _factory("aligner", name)
    aligner = factory(**validate_options(factory, options, defaults, where=f"aligner {name!r}"))
    info: dict[str, Any] = {"aligner": name, **dict(getattr(aligner, "info", None) or {})}
    head = getattr(aligner, "config", None)
    if head is not None:
        info["encoder"] = getattr(head, "encoder", None)
        info["aligner_threshold"] = getattr(aligner, "threshold", None)
    enc = getattr(getattr(aligner, "encoder", None), "resolved", None)
    if enc is not None:
        info["encoder_package"] = enc.source_package
    return aligner, info


def build_filters(config: AugmentConfig) -> list[Any]:
    """The recorded presets (the paper's Table 4 rows and their calibrated versions), then the
    config's filters, each once."""
    from paraspan.filter import RECORDED
    from paraspan.filter import build_filters as build

    return build([*RECORDED, *config.filters])


def build_chooser(config: AugmentConfig, filters: list[Any]) -> Any:
    """The filter named by ``config.choose_by`` (one of ``filters`` when recorded there too), or None."""
    if config.choose_by is None:
        return None
    from paraspan.filter import build_filter

    chooser = build_filter(config.choose_by)
    return next((f for f in filters if f.name == chooser.name), chooser)
