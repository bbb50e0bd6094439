"""Learned rewrite rules: a quasi-synchronous dependency grammar extracted from aligned pairs.

Following the QTSG of Woodsend & Lapata (2011), as used in the paper (§3.1.1), but over
dependency trees: for each source word ``h`` aligned to a target word ``h'``, the local
configuration of ``h`` and its dependents is compared with that of ``h'`` and its dependents.
A source dependent is *kept* when the words of its subtree are aligned inside exactly one
dependent of ``h'``, *deleted* when none of them is aligned, and the node is skipped (not
consistent with the alignment) otherwise. Target dependents with no aligned word are literal
*insertions* (at most two function words: "by", a comma). The minimal rule is this one level: the ordered
dependents of ``h`` → the order (and deletions, insertions) of their counterparts under ``h'``.
Identity rules are removed. Rules are generalised to the head's part of speech and the
dependents' relation labels (no words, except inserted ones), and counted over the corpus; rules
seen fewer than ``min_count`` times are dropped.

Alignments: MultiMWA's gold sure links, or, for pairs without any (MRPC), identity of lower-cased
lemmas that occur once on each side (the "alignment based on identity" of QTSG).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paraspan.errors import CorpusError
from paraspan.generate.rewrite.core import Piece, Rule, RuleContext, contiguous, keep, tidy

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

HEAD = "^"
MAX_DEPENDENTS = 6
MAX_INSERT = 2
#: inserted words must be function words: a rule that inserts content words would add meaning
CLOSED_CLASS = frozenset({"DET", "ADP", "PUNCT", "PRON", "CCONJ", "SCONJ", "AUX", "PART"})


@dataclass(frozen=True)
class Pattern:
    """``head_pos`` with dependents ``src`` (relation labels in order, ``^`` = the head) →
    ``tgt``: indices into ``src`` (kept, in their new order) and ``"=word"`` literals."""

    head_pos: str
    src: tuple[str, ...]
    tgt: tuple[int | str, ...]

    @property
    def name(self) -> str:
        digest = hashlib.sha1(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:8]
        return f"qg-{self.head_pos.lower()}-{digest}"

    def _slot(self, k: int) -> str:
        label = self.src[k]
        if label == HEAD:
            return self.head_pos
        if self.src.count(label) > 1:  # repeated relations are numbered so the rule reads unambiguously
            return f"{label}{self.src[:k + 1].count(label)}"
        return label

    def describe(self) -> str:
        left = " ".join(self._slot(k) for k in range(len(self.src)))
        right = [self._slot(t) if isinstance(t, int) else f'"{t[1:]}"' for t in self.tgt]
        return f"[{left}] → [{' '.join(right)}]"

    def to_dict(self) -> dict[str, Any]:
        return {"head_pos": self.head_pos, "src": list(self.src), "tgt": list(self.tgt)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Pattern:
        return cls(str(data["head_pos"]), tuple(data["src"]), tuple(data["tgt"]))


def local_config(token: Token) -> tuple[list[Token], tuple[str, ...]] | None:
    """``token`` and its dependents in order, and their slot labels; None if too many."""
    nodes = sorted([token, *token.children], key=lambda t: t.i)
    if len(nodes) - 1 > MAX_DEPENDENTS:
        return None
    return nodes, tuple(HEAD if t.i == token.i else t.dep_ for t in nodes)


def extract_pair(d1: Doc, d2: Doc, links: Iterable[tuple[int, int]]) -> list[Pattern]:
    """Non-identity one-level rules consistent with the alignment ``links`` (1:1 links only)."""
    links = list(links)
    left, right = Counter(i for i, _ in links), Counter(j for _, j in links)
    a = {i: j for i, j in links if left[i] == 1 and right[j] == 1 and i < len(d1) and j < len(d2)}
    aligned_src = {i for i, _ in links}
    found: list[Pattern] = []
    for h in d1:
        h2i = a.get(h.i)
        if h2i is None:
            continue
        h2 = d2[h2i]
        config = local_config(h)
        if config is None or len(config[0]) < 2:
            continue
        nodes, slots = config
        t_children = list(h2.children)
        t_sub = {c.i: {t.i for t in c.subtree} for c in t_children}
        assigned: dict[int, int] = {}  # target child index → source slot
        unaligned: list[int] = []  # source slots with no aligned word
        ok = True
        for k, node in enumerate(nodes):
            if node.i == h.i:
                continue
            images = {a[t.i] for t in node.subtree if t.i in a}
            touched = any(t.i in aligned_src for t in node.subtree)
            if not images:
                if touched:
                    ok = False
                    break
                unaligned.append(k)
                continue
            owners = [c for c, sub in t_sub.items() if images <= sub]
            if len(owners) != 1 or owners[0] in assigned or h2i in images:
                ok = False
                break
            assigned[owners[0]] = k
        if not ok:
            continue
        # An unaligned dependent replaced by an unaligned one with the same relation ("a" → "the",
        # or a repeated word identity alignment could not place) is a substitution, not a
        # structural change: the slot is kept. Paired left to right.
        free = [c for c in sorted(t_children, key=lambda t: t.i)
                if c.i not in assigned and not any(t.i in a.values() for t in c.subtree)]
        for k in unaligned:
            match = next((c for c in free if c.dep_ == nodes[k].dep_), None)
            if match is not None:
                assigned[match.i] = k
                free.remove(match)
        tgt: list[int | str] = []
        for node in sorted([h2, *t_children], key=lambda t: t.i):
            if node.i == h2i:
                tgt.append(slots.index(HEAD))
            elif node.i in assigned:
                tgt.append(assigned[node.i])
            else:
                words = [t for t in node.subtree]
                if len(words) > MAX_INSERT or any(w.i in a.values() or w.pos_ not in CLOSED_CLASS for w in words):
                    ok = False
                    break
                tgt.extend("=" + w.lower_ for w in words)
        if not ok or tuple(tgt) == tuple(range(len(slots))):
            continue
        found.append(Pattern(h.pos_, slots, tuple(tgt)))
    return found


def apply_pattern(pattern: Pattern, doc: Doc) -> list[list[Piece]]:
    """Every rewrite of ``doc`` at a node whose local configuration matches ``pattern.src``."""
    out = []
    for h in doc:
        if h.pos_ != pattern.head_pos:
            continue
        config = local_config(h)
        if config is None or config[1] != pattern.src:
            continue
        nodes = config[0]
        blocks = [[h.i] if n.i == h.i else sorted(t.i for t in n.subtree) for n in nodes]
        region = sorted(i for b in blocks for i in b)
        if not contiguous(region) or not all(contiguous(b) for b in blocks):
            continue
        new: list[Piece] = []
        for t in pattern.tgt:
            if isinstance(t, int):
                new.extend(keep(doc, blocks[t]))
            else:
                new.append(Piece(t[1:]))
        if not any(p.src is not None for p in new):
            continue
        pieces = keep(doc, range(0, region[0])) + new + keep(doc, range(region[-1] + 1, len(doc)))
        out.append(tidy(doc, pieces))
    return out


def make_rule(pattern: Pattern, count: int) -> Rule:
    def fn(doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
        return apply_pattern(pattern, doc)

    return Rule(pattern.name, "learned", "learned", fn, version="1", description=pattern.describe(),
                example=pattern.describe(), count=count, pattern=pattern.to_dict())


# --------------------------------------------------------------------------- corpora


@dataclass
class AlignedPair:
    tokens1: list[str] | None
    tokens2: list[str] | None
    text1: str | None
    text2: str | None
    links: list[tuple[int, int]] | None  # None: align by identity after parsing


def read_multimwa(path: str | Path) -> Iterator[AlignedPair]:
    """MultiMWA TSV: id, sentence 1, -, sentence 2, -, -, -, sure links ``i-j``, possible links."""
    name = str(path)
    with open(path, encoding="utf-8-sig") as handle:
        for number, raw in enumerate(handle, 1):
            fields = raw.rstrip("\n").split("\t")
            if not raw.strip():
                continue
            if len(fields) < 8:
                raise CorpusError.from_code("E723", file=name, line=number, n_fields=len(fields))
            try:
                links = [(int(x), int(y)) for x, y in (p.split("-") for p in fields[7].split())]
            except ValueError:
                raise CorpusError.from_code("E724", file=name, line=number, links=fields[7][:40]) from None
            yield AlignedPair(fields[1].split(), fields[3].split(), None, None, links)


def read_mrpc_positive(path: str | Path) -> Iterator[AlignedPair]:
    from paraspan.corpus.pairs import read_mrpc

    for pair in read_mrpc(path):
        if pair.gold.get("paraphrase") == 1:
            yield AlignedPair(None, None, pair.s1, pair.s2, None)


def identity_links(d1: Doc, d2: Doc) -> list[tuple[int, int]]:
    """Link tokens whose lower-cased lemma occurs exactly once in each sentence."""
    def index(doc: Doc) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {}
        for t in doc:
            found.setdefault(t.lemma_.lower(), []).append(t.i)
        return found

    i1, i2 = index(d1), index(d2)
    return [(v[0], i2[k][0]) for k, v in i1.items() if len(v) == 1 and len(i2.get(k, ())) == 1]


def _parse_words(nlp: Language, words: Sequence[str]) -> Doc:
    from spacy.tokens import Doc as SpacyDoc

    doc = SpacyDoc(nlp.vocab, words=list(words))
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    return doc


def learn_rules(pairs: Iterable[AlignedPair], nlp: Language, *, min_count: int = 3,
                progress: Any = None) -> tuple[list[tuple[Pattern, int]], dict[str, int]]:
    """Extract and count rules over ``pairs``; keep those seen ``min_count`` times or more."""
    counts: Counter = Counter()
    stats = Counter()
    for pair in pairs:
        stats["pairs"] += 1
        if pair.tokens1 is not None and pair.tokens2 is not None:
            d1, d2 = _parse_words(nlp, pair.tokens1), _parse_words(nlp, pair.tokens2)
        else:
            d1, d2 = nlp(pair.text1 or ""), nlp(pair.text2 or "")
        links = pair.links if pair.links is not None else identity_links(d1, d2)
        for pattern in set(extract_pair(d1, d2, links)):
            counts[pattern] += 1
        if progress is not None:
            progress()
    stats["distinct_rules"] = len(counts)
    kept = [(p, c) for p, c in counts.most_common() if c >= min_count]
    stats["kept_rules"] = len(kept)
    return kept, dict(stats)


def save_rules(rules: Sequence[tuple[Pattern, int]], path: str | Path, *, sources: dict[str, Any]) -> None:
    from paraspan.corpus.jsonl import atomic_write

    data = {"format": "paraspan-learned-rules", "version": 1, "sources": sources,
            "rules": [{"name": p.name, "count": c, "pattern": p.to_dict(), "describe": p.describe()} for p, c in rules]}
    with atomic_write(path) as handle:
        handle.write(json.dumps(data, indent=1) + "\n")


def load_learned(path: str | Path) -> list[Rule]:
    """Rules from a learned-rules JSON file (``paraspan learn-rules``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return [make_rule(Pattern.from_dict(r["pattern"]), int(r["count"])) for r in data["rules"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CorpusError.from_code("E725", file=str(path), exc=exc) from None
