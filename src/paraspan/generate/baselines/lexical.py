"""Word-level replacement that keeps the spans: WordNet synonyms (``synonym_replace``), sister LUs (``sister_lu``)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paraspan.corpus.schema import Sentence, Structure
from paraspan.errors import ParaspanError
from paraspan.generate.base import (
    Candidate,
    Capabilities,
    GenerationRequest,
    GenerationResult,
    require_anchor,
)
from paraspan.generate.baselines.common import (
    _BASE_TAGS,
    _WN_POS,
    _WORD,
    CONTENT_POS,
    LU_POS,
    _at_least_one,
    _Drawing,
    _request_rng,
    _scope,
    distinct,
    tokenize,
)
from paraspan.generate.edits import article_edits
from paraspan.generate.project import Edit, apply_edits, span_relation
from paraspan.generate.sister_lu import inflect_lu_like, lemma_words, replace_lu

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import FrameIndex, LexUnit



# ----------------------------------------------------------------------------- synonyms


class SynonymReplacer(_Drawing):
    """WordNet synonym replacement outside the labelled spans (see the module docstring);
    registered as ``synonym_replace``.

    The parse is the packaged spaCy pipeline's (the rewriter's), WordNet the packaged 3.0
    (:func:`paraspan.models.load_wordnet`), inflection LemmInflect's. A word is a candidate when
    it is a noun, verb, adjective or adverb, not a stop word, a name (spaCy entity), part of a
    compound or an auxiliary; its synonyms are the single-word lemmas of its ``senses`` most
    frequent synsets (``attested``: only lemmas SemCor has seen in that sense, which leaves out
    most rare words), inflected to its tag.
    """

    name = "synonym_replace"
    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=True)

    def __init__(self, p: float = 0.3, n: int = 5, seed: int = 0, senses: int = 1, attested: bool = True,
                 nlp: Any = None, wordnet: Any = None) -> None:
        super().__init__(p, n, seed)
        _at_least_one("senses", senses, "e.g. --set generator.senses=1")
        self.senses = senses
        self.attested = attested
        self._nlp = nlp
        self._wordnet = wordnet
        self.info.update({"senses": senses, "attested": attested})

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from paraspan.models import load_spacy

            self._nlp = load_spacy()
        return self._nlp

    @property
    def wordnet(self) -> Any:
        if self._wordnet is None:
            from paraspan.models import load_wordnet

            self._wordnet = load_wordnet()
        return self._wordnet

    def synonyms(self, token: Any) -> list[str]:
        """Inflected synonyms of a spaCy token (the module's rules), in WordNet's order."""
        from paraspan.models.inflect import inflect

        if token.pos_ not in _WN_POS or token.is_stop or not token.is_alpha or len(token.text) < 3:
            return []
        if token.dep_ in ("aux", "auxpass", "neg", "compound", "prt") or token.ent_type_:
            return []
        if any(c.dep_ == "prt" for c in token.children):  # a phrasal verb: "give up" is not "give"
            return []
        lemma = token.lemma_.lower()
        out: dict[str, None] = {}
        for synset in self.wordnet.synsets(lemma, pos=_WN_POS[token.pos_])[: self.senses]:
            for ln in synset.lemmas():
                name = ln.name()
                if name.lower() == lemma or not name.isalpha() or (self.attested and ln.count() <= 0):
                    continue
                form = name if token.tag_ in _BASE_TAGS else inflect(name, token.tag_)
                if not form or form.lower() == token.text.lower():
                    continue
                if token.text.isupper() and len(token.text) > 1:
                    form = form.upper()
                elif token.text[:1].isupper():
                    form = form[:1].upper() + form[1:]
                out.setdefault(form, None)
        return list(out)

    def _generate(self, request: GenerationRequest, sentence: Sentence, which: list[int]) -> GenerationResult:
        from paraspan.generate.project import doc_heads, doc_tokens

        doc = self.nlp(sentence.text)
        tokens = doc_tokens(doc)
        # the spans of the structures being changed, and every entity mention, keep their words
        kept = [(sp.start, sp.end) for k in which for sp in sentence.structures[k].spans()]
        kept += [(st.anchor.start, st.anchor.end) for st in sentence.structures
                 if st.kind == "entity" and st.anchor is not None]
        options: dict[int, list[str]] = {}
        for tok in doc:
            s, e = tokens[tok.i]
            if any(a < e and s < b for a, b in kept):
                continue
            found = self.synonyms(tok)
            if found:
                options[tok.i] = found
        if not options:
            return GenerationResult(request, [], note="no word outside the labelled spans has a WordNet synonym")

        def draw(rng: random.Random) -> list[Edit]:
            edits = []
            for i, forms in options.items():
                if rng.random() < self.p:
                    s, e = tokens[i]
                    edits.append(Edit(s, e, rng.choice(forms)))
            return edits

        return self._drawn(request, sentence, tokens, doc_heads(doc), kept, draw, {"replaceable_words": len(options)})


# ----------------------------------------------------------------------------- sister LUs


class SisterLUReplacer:
    """Sister-LU replacement without infilling (Pancholy et al. 2021); registered as ``sister_lu``.

    For each FrameNet ``frame`` structure asked for: the LUs of its frame with the target's part
    of speech (:meth:`FrameIndex.sister_lus`; not the same lemma, nor names with brackets or
    underscores), in an order drawn from the seed and the request id; the first ``n`` that inflect
    to the form of the target (:func:`~paraspan.generate.sister_lu.inflect_lu_like`) replace it
    (:func:`~paraspan.generate.sister_lu.replace_lu`: the anchor is relabelled with the new LU and
    every FE moves). An "a"/"an" before the target is fixed for the new word. A discontinuous
    target ("take … off") is left alone, and so are targets of other parts of speech than
    ``pos`` (FrameNet's LU suffixes; by default verbs, nouns and adjectives: the sisters of a
    preposition, conjunction or adverb swap "in" for "on", "because" for "so", "where" for
    "underground" — other words, not the same situation).
    """

    name = "sister_lu"
    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=True)

    def __init__(self, frames: FrameIndex | str | Path | None, n: int = 5, seed: int = 0,
                 pos: Sequence[str] = CONTENT_POS) -> None:
        if frames is None:
            raise ParaspanError.from_code("E881")
        _at_least_one("n", n, "e.g. --candidates 5")
        unknown = [p for p in pos if p not in LU_POS]
        if unknown or not pos:
            raise ParaspanError.from_code("E880", option="pos", rule=f"LU suffixes of {', '.join(LU_POS)} or all",
                                          value=",".join(pos), fix="e.g. --set generator.pos=v,n,a")
        self.pos = tuple(pos)
        if not hasattr(frames, "frames"):
            from paraspan.corpus.frame_index import FrameIndex

            frames = FrameIndex.load(frames)  # type: ignore[arg-type]
        self.frames: FrameIndex = frames  # type: ignore[assignment]
        self.n = n
        self.seed = seed
        self.info: dict[str, Any] = {"baseline": self.name, "pos": ",".join(self.pos)}

    def sisters(self, structure: Structure) -> list[LexUnit]:
        """The LUs that may replace the target of ``structure`` (sorted by name)."""
        from paraspan.text.lexical_units import lu_pos

        label = structure.anchor.label if structure.anchor is not None else None
        pos = lu_pos(label)
        if not label or pos is None:
            return []
        return [lu for lu in self.frames.sister_lus(label, frame=structure.label, pos=pos)
                if lemma_words(lu) != lemma_words(label) and not re.search(r"[()\[\]_]", lu.name)]

    def generate(self, request: GenerationRequest) -> GenerationResult:
        which, why = _scope(request, self.name)
        sentence = request.sentence
        if sentence is None or which is None:
            return GenerationResult(request, [], note=why)
        rng = _request_rng(self.seed, request)
        queues: list[list[tuple[int, LexUnit]]] = []
        notes: list[str] = []
        for k in which:
            st = sentence.structures[k]
            reason = self._skip(st)
            if reason is None:
                sisters = self.sisters(st)
                rng.shuffle(sisters)
                if not sisters:
                    reason = f"no sister LU of {st.anchor.label if st.anchor else '?'} in {st.label}"
                queues.append([(k, lu) for lu in sisters])
            if reason is not None:
                notes.append(reason)
        # several structures (a request without one): take them in turn
        jobs = [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]
        failed: list[str] = []

        def replaced() -> Iterator[Candidate]:
            for k, lu in jobs:
                cand = self._replace(sentence, k, lu)
                if cand is None:
                    failed.append(lu.name)
                else:
                    yield cand

        out = distinct(replaced(), sentence.text, request.n or self.n)
        if not out and failed:
            st = sentence.structures[jobs[0][0]]
            anchor = st.anchor.text_in(sentence.text) if st.anchor is not None else "?"
            notes.append(f"cannot inflect a sister LU like {anchor!r} ({st.anchor.label if st.anchor else '?'})")
        return GenerationResult(request, out, note=None if out else "; ".join(notes) or "no sister LU",
                                stats={"sisters": len(jobs), "not_inflected": len(failed)})

    def _skip(self, structure: Structure) -> str | None:
        from paraspan.text.lexical_units import lu_pos

        if structure.kind != "frame":
            return f"not a FrameNet frame structure ({structure.kind})"
        if structure.anchor is None or not structure.anchor.label:
            return "no target LU"
        if lu_pos(structure.anchor.label) not in self.pos:
            return f"{structure.anchor.label} is not of a part of speech replaced (pos: {','.join(self.pos)})"
        if structure.extra.get("anchor_rest"):
            return "a discontinuous target"
        return None

    def _replace(self, sentence: Sentence, k: int, lu: LexUnit) -> Candidate | None:
        text = sentence.text
        structure = sentence.structures[k]
        anchor = require_anchor(structure, "sister-LU replacement")
        if not anchor.label:
            return None  # no LU to replace it with a sister of
        words = _WORD.findall(text[:anchor.start])
        form = inflect_lu_like(anchor.text_in(text), anchor.label, lu.name, words[-1] if words else "")
        if form is None:
            return None
        new_text, target = replace_lu(text, structure, lu, form)
        edit = Edit(anchor.start, anchor.end, form, anchor.label)
        tokens = tokenize(sentence)
        same_text, placed, _, _ = apply_edits(text, sentence.structures, tokens, [edit])
        if same_text != new_text:
            raise ParaspanError.from_code("E973", what="sister-LU replacement's edit and its span splice",
                                          first=new_text, second=same_text)
        # an FE that the target cuts (not the target itself, nor one holding it) has no place
        target.args = [new for old, new in zip(structure.args, target.args, strict=True)
                       if span_relation(old, [edit]) != "broken"]
        placed[k] = target
        fixes = article_edits(text, tokens, [edit], [])
        if fixes:  # "a"/"an" before the new word: a second pass over the new text (it lies before the target)
            new_text, placed, _, _ = apply_edits(new_text, placed, [], fixes)
        meta = {"baseline": self.name, "structure": k, "lu_from": anchor.label, "lu_to": lu.name}
        return Candidate(new_text, {}, structures=placed, meta=meta)




def make_synonym_replacer(p: float = 0.3, senses: int = 1, attested: bool = True, n: int = 5,
                          seed: int = 0) -> SynonymReplacer:
    """The registered ``synonym_replace`` generator: each content word outside the labelled spans
    replaced with probability ``p`` by a WordNet synonym of its ``senses`` most frequent senses
    (``attested``: only lemmas SemCor has seen in that sense), inflected like it."""
    return SynonymReplacer(p, n, seed, senses, attested)


def make_sister_lu(frames: str | None = None, pos: str = "v,n,a", n: int = 5, seed: int = 0) -> SisterLUReplacer:
    """The registered ``sister_lu`` generator: the target replaced by other LUs of its frame with
    its part of speech, inflected like it; ``frames`` the FrameNet release (folder or .tar.gz),
    ``pos`` the targets replaced (comma-separated LU suffixes: v, n, a, adv, prep …, or all)."""
    wanted = LU_POS if pos.strip().lower() == "all" else tuple(p.strip().lower() for p in pos.split(",") if p.strip())
    replacer = SisterLUReplacer(frames, n, seed, wanted)
    replacer.info["frames"] = str(frames)
    return replacer
