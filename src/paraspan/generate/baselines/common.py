"""What the replacement baselines share: tokens and labelled spans, seeded draws, and edits turned into a candidate."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.generate.base import (
    Candidate,
    Capabilities,
    CharSpan,
    GenerationRequest,
    GenerationResult,
    MappedToken,
    TokenMapping,
)

# PREDICATE_KINDS: their anchor is never replaced by token, mention or synonym replacement
from paraspan.generate.edits import article_edits
from paraspan.generate.project import PREDICATE_KINDS, Edit, apply_edits, tokens_in

if TYPE_CHECKING:
    pass


#: FrameNet's LU part-of-speech suffixes, and those ``sister_lu`` replaces by default.
LU_POS = ("v", "n", "a", "adv", "prep", "num", "art", "c", "scon", "intj")
CONTENT_POS = ("v", "n", "a")
#: Draws per wanted candidate before giving up (a draw may change nothing, or repeat one).
DRAWS_PER_CANDIDATE = 10

_TOKEN = re.compile(r"\w+(?:[-'’.&]\w+)*|[^\w\s]")
_WORD = re.compile(r"[\w'’-]+")
#: Closed-class words that are capitalized only because they began their sentence: lowered when a
#: donor that began its sentence lands in the middle of another.
_CLOSED = frozenset((
    "a an the this that these those his her its their our my your some any many all no every each both "
    "in on at for with from to by of into onto about after before during over under since until "
    "he she it they we you there here when while if as"
).split())
_WN_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
#: Penn tags whose form is the lemma itself (the rewriter's synonym rule uses the same set).
_BASE_TAGS = frozenset({"NN", "NNP", "VB", "VBP", "JJ", "RB"})


# ----------------------------------------------------------------------------- tokens and spans


def _meta_tokens(sentence: Sentence) -> list[CharSpan] | None:
    """The reader's tokens (``meta["tokens"]``) when they fit the text, else None."""
    raw = sentence.meta.get("tokens")
    if not isinstance(raw, list) or not raw:
        return None
    out: list[CharSpan] = []
    last = 0
    for item in raw:
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(v, int) for v in item)):
            return None
        s, e = int(item[0]), int(item[1])
        if not (last <= s < e <= len(sentence.text)) or not sentence.text[s:e].strip():
            return None
        out.append((s, e))
        last = e
    return out


def tokenize(sentence: Sentence) -> list[CharSpan]:
    """Tokens of ``sentence``: the reader's (``meta["tokens"]``) or words and punctuation marks,
    cut at every span boundary so that each labelled span is a run of whole tokens."""
    text = sentence.text
    base = _meta_tokens(sentence) or [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    cuts = sorted({o for st in sentence.structures for sp in st.spans() for o in (sp.start, sp.end)})
    out: list[CharSpan] = []
    for s, e in base:
        bounds = [s, *(c for c in cuts if s < c < e), e]
        for a, b in zip(bounds, bounds[1:], strict=False):
            piece = text[a:b]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                out.append((a + lead, a + len(piece.rstrip())))
    return out


def labelled_spans(structure: Structure) -> list[tuple[Span, str]]:
    """The spans of ``structure`` that replacement may change, with their labels: an entity's
    mention (labelled with the entity type), or a predicate's arguments (never one that overlaps
    the anchor: a noun target that is its own FE)."""
    if structure.kind == "entity":
        return [(structure.anchor, structure.label)] if structure.anchor is not None else []
    anchor = structure.anchor
    return [(a, a.label) for a in structure.args if a.label and (anchor is None or not a.overlaps(anchor))]


def _wordlike(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _at_start(text: str, offset: int) -> bool:
    """Whether ``offset`` begins the sentence (nothing but punctuation before it)."""
    return not _wordlike(text[:offset])


_FINAL = re.compile(r"\s*[.!?]+[\"'”’)]*\s*$")


def _final_punctuation(text: str, span: Span) -> int:
    """How many characters at the end of an argument ``span`` are its sentence's final
    punctuation (0 unless the span ends the sentence): they stay in place when it is replaced,
    and they are no part of it as a donor."""
    if text[span.end:].strip():
        return 0
    found = _FINAL.search(text[span.start:span.end])
    return len(found.group(0)) if found and found.start() > 0 else 0


def _fit_case(new: str, at_start: bool) -> str:
    """A donor's text for its new place: capitalized at the start of the sentence; a closed-class
    first word that was capitalized only because it began its own sentence is lowered."""
    if not new:
        return new
    if at_start:
        return new[:1].upper() + new[1:]
    first = re.match(r"\w+", new)
    if first is not None:
        word = first.group(0)
        if word.lower() in _CLOSED and word[:1].isupper() and not (len(word) > 1 and word.isupper()):
            return new[:1].lower() + new[1:]
    return new


# ----------------------------------------------------------------------------- edits → candidate


def _mapping(tokens: Sequence[CharSpan], heads: Sequence[int], edits: Sequence[Edit], new_tokens: Sequence[CharSpan],
             new_edits: Sequence[CharSpan], new_text: str) -> TokenMapping:
    """Source token → output token: kept tokens as they are, a replaced token ``changed``; a
    longer mention's extra words attached to its last token, a shorter one's last tokens deleted."""
    covered: dict[int, int] = {}
    for k, e in enumerate(edits):
        for i in tokens_in(tokens, e.start, e.end):
            covered[i] = k
    out: list[MappedToken] = []
    done: set[int] = set()
    for i, (s, e) in enumerate(new_tokens):
        k = covered.get(i)
        if k is None:
            out.append(MappedToken(s, e, i))
            continue
        if k in done:
            continue
        done.add(k)
        ids = [j for j, kk in sorted(covered.items()) if kk == k]
        start, end = new_edits[k]
        pieces = [(start + m.start(), start + m.end()) for m in _TOKEN.finditer(new_text[start:end])] or [(start, end)]
        for j, (a, b) in enumerate(pieces):
            if j < len(ids):
                out.append(MappedToken(a, b, ids[j], changed=edits[k].changed))
            else:
                out.append(MappedToken(a, b, None, attach=ids[-1]))
    return TokenMapping(tuple(tokens), tuple(heads), tuple(out))


def _scope(request: GenerationRequest, what: str) -> tuple[list[int] | None, str | None]:
    """The structures a request changes, or why there are none to work on."""
    sentence = request.sentence
    if sentence is None:
        return None, f"{what} needs the annotated sentence (request.sentence), not plain text"
    if request.structure is None:
        return list(range(len(sentence.structures))), None
    if not 0 <= request.structure < len(sentence.structures):
        return None, f"the sentence has no structure {request.structure}"
    return [request.structure], None


def _at_least_one(option: str, value: int, fix: str) -> None:
    """E880 unless the count option ``option`` is at least 1."""
    if value < 1:
        raise ParaspanError.from_code("E880", option=option, rule="at least 1", value=value, fix=fix)


def _request_rng(seed: int, request: GenerationRequest) -> random.Random:
    """The generator of a baseline's draws for ``request``."""
    # a str seed is hashed with SHA-512 by random.Random: the same in every process and run
    return random.Random(f"{seed}\x1f{request.id}")


def distinct(candidates: Iterable[Candidate], source: str, wanted: int) -> list[Candidate]:
    """The first ``wanted`` of ``candidates`` (read lazily) whose texts differ from ``source`` and from each other."""
    seen = {source}
    out: list[Candidate] = []
    for cand in candidates:
        if cand.text in seen:
            continue
        seen.add(cand.text)
        out.append(cand)
        if len(out) == wanted:
            break
    return out


class _Drawing:
    """Shared by the random baselines: the request's scope, then seeded draws of edits until ``n`` distinct
    candidates."""

    name = ""
    capabilities = Capabilities()

    def __init__(self, p: float, n: int, seed: int) -> None:
        if not 0.0 < p <= 1.0:
            raise ParaspanError.from_code("E880", option="p", rule="a probability in (0, 1]", value=p,
                                          fix="e.g. --set generator.p=0.3")
        _at_least_one("n", n, "e.g. --candidates 5")
        self.p = p
        self.n = n
        self.seed = seed
        self.info: dict[str, Any] = {"baseline": self.name, "p": p}

    def rng(self, request: GenerationRequest) -> random.Random:
        return _request_rng(self.seed, request)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        which, why = _scope(request, self.name)
        sentence = request.sentence
        if sentence is not None:
            self._see(sentence)
        if sentence is None or which is None:
            return GenerationResult(request, [], note=why)
        return self._generate(request, sentence, which)

    def _see(self, sentence: Sentence) -> None:
        """Take note of every sentence asked about, in scope or not (nothing here; a donor pool grows)."""

    def _generate(self, request: GenerationRequest, sentence: Sentence, which: list[int]) -> GenerationResult:
        """The candidates for the structures ``which`` of ``sentence``."""
        raise NotImplementedError

    def _drawn(self, request: GenerationRequest, sentence: Sentence, tokens: Sequence[CharSpan],
               heads: Sequence[int] | None, frozen: Sequence[CharSpan], draw: Callable[[random.Random], list[Edit]],
               stats: dict[str, Any]) -> GenerationResult:
        """The result of seeded ``draw`` calls (an empty draw is skipped), each placed by :func:`_candidate`."""
        rng = self.rng(request)
        wanted = request.n or self.n

        def built() -> Iterator[Candidate]:
            for _ in range(DRAWS_PER_CANDIDATE * wanted):
                edits = draw(rng)
                if edits:
                    yield _candidate(sentence, tokens, heads, edits, frozen, self.name)

        cands = distinct(built(), sentence.text, wanted)
        return GenerationResult(request, cands, note=None if cands else "every draw repeated the source or another "
                                "candidate", stats=stats)


def _candidate(sentence: Sentence, tokens: Sequence[CharSpan], heads: Sequence[int] | None, edits: list[Edit],
               frozen: Sequence[CharSpan], method: str) -> Candidate:
    """A candidate with every structure placed and a token mapping (articles fixed first)."""
    edits = sorted(edits, key=lambda e: e.start)
    edits = sorted([*edits, *article_edits(sentence.text, tokens, edits, frozen)], key=lambda e: e.start)
    new_text, placed, new_tokens, new_edits = apply_edits(sentence.text, sentence.structures, tokens, edits)
    mapping = _mapping(tokens, heads if heads is not None else list(range(len(tokens))), edits, new_tokens,
                       new_edits, new_text)
    meta = {"baseline": method, "edits": [[sentence.text[e.start:e.end], e.new, e.label] for e in edits if e.changed]}
    return Candidate(new_text, {}, structures=placed, mapping=mapping, meta=meta)


def _frozen_anchors(sentence: Sentence, which: Sequence[int]) -> list[CharSpan]:
    """The predicate anchors of the structures being changed: never edited."""
    return [(st.anchor.start, st.anchor.end) for k in which
            for st in [sentence.structures[k]] if st.kind in PREDICATE_KINDS and st.anchor is not None]

