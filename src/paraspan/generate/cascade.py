"""Several generators in one chain: a structural rewrite first, then lexical substitutes.

No one generator covers a corpus here: the rule rewriter applies to a sixth of the frame
structures (voice, clefts, reordering need the right syntax) and keeps the anchor's word, the
contextual substituter changes the anchor's word and nothing else. A ``cascade`` asks its
members in order and offers their candidates together, earlier members first (the pipeline
ranks by placement, ties go to the earlier candidate, and the chooser takes the first that
passes verification), so a structure gets a rewrite where a rule applies and a substitute where
none does or the rewrite fails its checks.

Iterations: a member that does not honour bans (a rewriter keeps the anchor's words) is asked
in a chain's first iteration only, and a deterministic one only at its first attempt (it would
give the same candidates again). Its candidates carry ``meta["keeps_anchor"]``: when one becomes
the output, the chain goes on to its next iteration with the same bans
(:meth:`paraspan.pipeline.loop.Augmenter._step`) instead of ending as "anchor banned already".
Each candidate names its member in ``meta["member"]``, which lands in the output's provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from paraspan.errors import ParaspanError
from paraspan.generate.base import Capabilities, GenerationRequest, GenerationResult, add_stats

#: what ``augment``'s default cascade holds, in order. The rewriter without its voice rules: judged
#: over the cascade runs (``benchmarks/README.md``, "Verified augmentation per generator"), 26 of 71
#: passives were right (FrameNet dev and train 17 of 51, EWT dev 9 of 20), every other rule family
#: 80–100%
DEFAULT_MEMBERS: tuple[dict[str, Any], ...] = (
    {"name": "rewrite", "families": "insertion,reorder,genitive,split,extraction"}, {"name": "substitute"})


@dataclass
class Member:
    name: str
    generator: Any


@dataclass
class Cascade:
    """Members asked in order (see the module docstring)."""

    members: list[Member]
    name: str = "cascade"
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def capabilities(self) -> Capabilities:
        caps = [m.generator.capabilities for m in self.members]
        return Capabilities(honours_ban=any(c.honours_ban for c in caps),
                            needs_structure=any(c.needs_structure for c in caps),
                            deterministic=all(c.deterministic for c in caps),
                            keeps_meaning=all(c.keeps_meaning for c in caps))

    def _asks(self, member: Member, request: GenerationRequest) -> bool:
        caps = member.generator.capabilities
        if caps.honours_ban:
            return True
        # it keeps the banned words: useful once per chain, and once per iteration when deterministic
        return request.iteration <= 1 and (request.attempt == 0 or not caps.deterministic)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return self.generate_batch([request])[0]

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        results = [GenerationResult(r, []) for r in requests]
        notes: list[list[str]] = [[] for _ in requests]
        for member in self.members:
            picked = [k for k, r in enumerate(requests) if self._asks(member, r)]
            if not picked:
                continue
            batch = getattr(member.generator, "generate_batch", None)
            asked = [requests[k] for k in picked]
            got = batch(asked) if callable(batch) else [member.generator.generate(r) for r in asked]
            keeps = not member.generator.capabilities.honours_ban
            for k, one in zip(picked, got, strict=True):
                for cand in one.candidates:
                    cand.meta = {**cand.meta, "member": member.name, **({"keeps_anchor": True} if keeps else {})}
                results[k].candidates.extend(one.candidates)
                if one.note and not one.candidates:
                    notes[k].append(f"{member.name}: {one.note}")
                add_stats(results[k].stats, one.stats)
        for result, why in zip(results, notes, strict=True):
            if not result.candidates:
                result.note = "; ".join(why) or "no member was asked"
        return results


def make_cascade(members: list[dict[str, Any]] | None = None, model: str | None = None, device: str | None = None,
                 seed: int = 0, threads: int | None = 1) -> Cascade:
    """The registered ``cascade`` generator: ``members``, generator blocks (``{"name": …,
    options …}``) asked in order, by default the rule rewriter (without passives, see
    :data:`DEFAULT_MEMBERS`) then the contextual substituter;
    ``model`` (``--model``), ``device``, ``seed`` and ``threads`` go to the members that take them
    and leave them out."""
    from paraspan.generate.base import generators

    built: list[Member] = []
    info: dict[str, Any] = {"members": []}
    for name, values in _member_blocks(members, model=model, device=device, seed=seed, threads=threads):
        generator = generators.get(name)(**values)
        built.append(Member(name, generator))
        info["members"].append(name)
        for key, value in (getattr(generator, "info", None) or {}).items():
            info.setdefault(key, value)
    return Cascade(built, info=info)


def _member_blocks(members: list[dict[str, Any]] | None, **run: Any) -> list[tuple[str, dict[str, Any]]]:
    """``(name, validated options)`` per member, with the run-level values its factory takes and
    its block leaves out."""
    from paraspan.generate.base import generators
    from paraspan.registry import factory_options

    blocks = [dict(b) if isinstance(b, dict) else b for b in (DEFAULT_MEMBERS if members is None else members)]
    if not blocks or not all(isinstance(b, dict) and isinstance(b.get("name"), str) for b in blocks):
        raise ParaspanError.from_code("E880", option="generator.members", rule="a list of generator blocks with a name",
                                      value=members, fix='e.g. --set \'generator.members=[{"name": "rewrite"}, '
                                                         '{"name": "substitute"}]\'')
    out = []
    for block in blocks:
        name = block.pop("name")
        if name == "cascade":
            raise ParaspanError.from_code("E880", option="generator.members", rule="generators other than cascade",
                                          value=name, fix="list the generators themselves")
        run_level = {k: v for k, v in run.items() if v is not None and k in factory_options(generators.get(name))}
        out.append((name, generators.validate(name, block, run_level)))
    return out


def _check_options(values: dict[str, Any]) -> None:
    """Every member block checked when the run's config is (before any model loads)."""
    _member_blocks(values.get("members"), model=values.get("model"), device=values.get("device"))


make_cascade.check_options = _check_options  # type: ignore[attr-defined]
