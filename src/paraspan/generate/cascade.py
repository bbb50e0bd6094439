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
give the same candidates again). Its candidates carry ``Generated.keeps_anchor``: when one becomes
the output, the chain goes on to its next iteration with the same bans
(:meth:`paraspan.pipeline.loop.Augmenter._advance`) instead of ending as "anchor banned already".
Each candidate names its member in ``meta["member"]``, which lands in the output's provenance.

Stopping early (``stop_early``, on by default): the pipeline asks the members one at a time
(:meth:`Cascade.stages`) and asks a later member only for the structures whose earlier members gave
no output (no placed candidate, or none that passed the chooser's check), so the substituter does
not decode for a structure whose rewrite was written already. The outputs are those of asking every
member at once (:meth:`Cascade.generate_batch`), whose ranking puts an earlier member's candidate
first on a tie, except where a later member's candidate is placed with a higher score than an
earlier one that passes (with the generators' own placements, as both default members give, scores
tie); a structure's candidate rows then hold only the members that were asked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from paraspan.errors import ParaspanError
from paraspan.generate.base import (
    BatchGenerator,
    Capabilities,
    GenerationRequest,
    GenerationResult,
    GeneratorFactory,
    Stage,
    StagedGenerator,
    add_stats,
)
from paraspan.provenance import Generated

#: What ``augment``'s default cascade holds, in order: the rewriter without its voice rules (judged
#: wrong far more often than the other families) and the substituter on the anchor only (its context
#: target was judged wrong more often); the figures are in ``benchmarks/README.md`` ("Measurements
#: behind the defaults").
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
    stop_early: bool = True

    @property
    def capabilities(self) -> Capabilities:
        caps = [m.generator.capabilities for m in self.members]
        return Capabilities(honours_ban=any(c.honours_ban for c in caps),
                            needs_structure=any(c.needs_structure for c in caps),
                            deterministic=all(c.deterministic for c in caps),
                            keeps_meaning=all(c.keeps_meaning for c in caps),
                            # a retry asks only the members that sample (a deterministic one is not asked again)
                            retries=max((c.retries for c in caps if not c.deterministic), default=0))

    def _asks(self, member: Member, request: GenerationRequest) -> bool:
        caps = member.generator.capabilities
        if caps.honours_ban:
            return True
        # it keeps the banned words: useful once per chain, and once per iteration when deterministic
        return request.iteration <= 1 and (request.attempt == 0 or not caps.deterministic)

    def _run(self, member: Member, requests: Sequence[GenerationRequest], stage: Stage | None = None,
             ) -> list[GenerationResult]:
        """``member``'s results for ``requests`` (all of which it asks; ``stage``: one of the member's
        own stages), its candidates marked."""
        if stage is not None:
            got = stage.generate_batch(requests)
        elif isinstance(member.generator, BatchGenerator):
            got = member.generator.generate_batch(requests)
        else:
            got = [member.generator.generate(r) for r in requests]
        keeps = not member.generator.capabilities.honours_ban
        for one in got:
            for cand in one.candidates:
                said = Generated.of_meta(cand.meta)
                rest = {k: v for k, v in cand.meta.items() if k not in Generated.KEYS}
                cand.meta = replace(said, keeps_anchor=said.keeps_anchor or keeps).meta(**rest, member=member.name)
            if one.note and not one.candidates:
                one.note = f"{member.name}: {one.note}"
        return got

    def stages(self) -> list[Stage] | None:
        """The members one at a time, for a caller that stops asking once a structure has its
        output (the pipeline's loop); None when ``stop_early`` is off (every member is asked)."""
        if not self.stop_early:
            return None
        out = []
        for m in self.members:
            inner = m.generator.stages() if isinstance(m.generator, StagedGenerator) else None
            # a member with stages of its own (the substituter's anchor, then context word) is asked stage by stage
            for part in inner or [None]:
                if part is None:
                    out.append(Stage(m.name, lambda r, m=m: self._asks(m, r), lambda rs, m=m: self._run(m, rs)))
                else:
                    out.append(Stage(f"{m.name}:{part.name}", lambda r, m=m, p=part: self._asks(m, r) and p.asks(r),
                                     lambda rs, m=m, p=part: self._run(m, rs, p)))
        return out

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return self.generate_batch([request])[0]

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        """Every member asked for every request it asks, the candidates together, earlier members first."""
        results = [GenerationResult(r, []) for r in requests]
        notes: list[list[str]] = [[] for _ in requests]
        for member in self.members:
            picked = [k for k, r in enumerate(requests) if self._asks(member, r)]
            if not picked:
                continue
            for k, one in zip(picked, self._run(member, [requests[k] for k in picked]), strict=True):
                results[k].candidates.extend(one.candidates)
                if one.note and not one.candidates:
                    notes[k].append(one.note)
                add_stats(results[k].stats, one.stats)
        for result, why in zip(results, notes, strict=True):
            if not result.candidates:
                result.note = "; ".join(why) or "no member was asked"
        return results


class CascadeFactory(GeneratorFactory):
    """The cascade's factory: its member blocks are checked, and versioned, with the run's config."""

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Every member block checked when the run's config is (before any model loads)."""
        _member_blocks(options.get("members"), model=options.get("model"), device=options.get("device"))

    def code_versions(self, options: Mapping[str, Any]) -> dict[str, str]:
        """Every member's code versions (:func:`paraspan.generate.base.code_versions`), together."""
        from paraspan.generate.base import code_versions, generators

        out: dict[str, str] = {}
        for name, values in _member_blocks(options.get("members"), model=options.get("model"),
                                           device=options.get("device"), seed=options.get("seed"),
                                           threads=options.get("threads")):
            for key, version in code_versions(generators.get(name), values).items():
                out[f"{name}:{key}"] = version
        return out


@CascadeFactory
def make_cascade(members: list[dict[str, Any]] | None = None, model: str | None = None, device: str | None = None,
                 seed: int = 0, threads: int | None = 1, stop_early: bool = True) -> Cascade:
    """The registered ``cascade`` generator: ``members``, generator blocks (``{"name": …,
    options …}``) asked in order, by default the rule rewriter (without passives, see
    :data:`DEFAULT_MEMBERS`) then the contextual substituter; with ``stop_early`` a later member
    is asked only for the structures the earlier ones gave no output (see the module docstring);
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
    return Cascade(built, info=info, stop_early=stop_early)


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
        if isinstance(generators.get(name), CascadeFactory):
            raise ParaspanError.from_code("E880", option="generator.members", rule="generators other than cascade",
                                          value=name, fix="list the generators themselves")
        run_level = {k: v for k, v in run.items() if v is not None and k in factory_options(generators.get(name))}
        out.append((name, generators.validate(name, block, run_level)))
    return out

