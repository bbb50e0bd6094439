"""Entailment judges: (premise, hypothesis) → probabilities of entailment / neutral / contradiction.

Three kinds behind one interface (:class:`Judge`):

- ``minilm-nli`` (default): the packaged all-MiniLM-L6-v2 as a cross-encoder whose top layers and
  classifier head were fine-tuned on SICK train (``paraspan train-nli``); only those layers ship,
  as a small fp16 delta in ``paraspan/filter/data``, applied on top of the packaged encoder.
- ``llm``: the local GGUF model (``llm:small`` etc. for another) asked a short question; the answer
  is read from the next-token logits of the label words, never from sampled text.
- ``hub:<id or folder>``: any transformers sequence classifier trained on NLI (e.g. an MNLI
  RoBERTa), its labels mapped through ``config.id2label``; needs the network for a hub id.

Specs name judges: ``minilm-nli``, ``minilm-nli:<folder with weights>``, ``llm``, ``llm:<model>``,
``hub:<id>``. Heavy libraries are imported only when a judge is loaded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from paraspan.corpus.pairs import NLI_LABELS
from paraspan.errors import ModelError, ParaspanError
from paraspan.registry import Registry

#: Column order of every probability array a judge returns (the gold labels' order too).
LABELS: tuple[str, str, str] = NLI_LABELS

#: The judge a relation filter (and ``paraspan relabel``) uses unless told otherwise.
DEFAULT_JUDGE = "minilm-nli"


@dataclass
class Judgements:
    """A judge's answers for n pairs: ``probs`` (n, 3) in :data:`LABELS` order, rows summing to 1,
    and ``truncated`` (n,): whether the pair was cut to fit the model."""

    probs: np.ndarray
    truncated: np.ndarray

    def labels(self) -> list[str]:
        return [LABELS[i] for i in self.probs.argmax(axis=1)]

    def __len__(self) -> int:
        return int(self.probs.shape[0])


class Judge(Protocol):
    """Anything with a ``name`` and a batched ``judge(premises, hypotheses)``."""

    name: str

    def judge(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Judgements: ...


def _check_lengths(premises: Sequence[str], hypotheses: Sequence[str]) -> None:
    if len(premises) != len(hypotheses):
        raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")


def _empty() -> Judgements:
    return Judgements(np.zeros((0, 3), dtype=np.float32), np.zeros(0, dtype=bool))


# --------------------------------------------------------------------------- cross-encoder


def packaged_weights() -> Path:
    """The folder holding the shipped ``minilm-nli`` delta and its recipe."""
    from importlib.resources import files

    return Path(str(files("paraspan.filter") / "data"))


@dataclass
class CrossEncoderJudge:
    """MiniLM cross-encoder: ``[CLS] premise [SEP] hypothesis [SEP]`` → 3 logits."""

    model: Any  # paraspan.filter.nli_train.NliCrossEncoder
    tokenizer: Any
    recipe: dict[str, Any] = field(default_factory=dict)
    name: str = "minilm-nli"
    batch_size: int = 32
    max_length: int = 256  # word pieces for the pair; longer pairs are cut, longest sentence first

    @classmethod
    def load(cls, weights: str | os.PathLike[str] | None = None, *,
             batch_size: int = 32, max_length: int = 256, name: str = "minilm-nli") -> CrossEncoderJudge:
        """Load the packaged encoder and apply the fine-tuned delta from ``weights`` (a folder
        with ``minilm-nli.safetensors`` + ``minilm-nli.json``; default: the shipped one)."""
        from paraspan.filter.nli_train import load_cross_encoder

        folder = Path(weights) if weights is not None else packaged_weights()
        model, tokenizer, recipe = load_cross_encoder(folder)
        return cls(model, tokenizer, recipe, name=name, batch_size=batch_size, max_length=max_length)

    def judge(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Judgements:
        def forward(enc: Any) -> np.ndarray:
            logits = self.model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
            return logits.float().softmax(-1).numpy()

        return _judge_in_batches(self.tokenizer, premises, hypotheses, self.batch_size, self.max_length, forward)


# --------------------------------------------------------------------------- LLM


LLM_SYSTEM = "You are a careful annotator of natural language inference."
# Fixed text first and the sentences last, so the shared prefix stays in llama.cpp's KV cache.
LLM_INSTRUCTION = (
    "Read a premise and a hypothesis. Answer with one word:\n"
    "true - the premise entails the hypothesis: if the premise is true, the hypothesis must be true;\n"
    "false - the premise contradicts the hypothesis: they cannot both be true;\n"
    "unknown - the hypothesis might be true or false given the premise.\n\n"
    "Premise: A man is playing a guitar on stage.\nHypothesis: A man is playing an instrument.\nAnswer: true\n\n"
    "Premise: A woman is slicing an onion.\nHypothesis: Nobody is slicing an onion.\nAnswer: false\n\n"
    "Premise: A dog runs through the grass.\nHypothesis: A brown dog is chasing a ball.\nAnswer: unknown\n\n"
)
#: Answer words per label; probabilities of their first tokens (all spellings) are summed.
LLM_WORDS: dict[str, tuple[str, ...]] = {
    "entailment": ("true", "True"),
    "neutral": ("unknown", "Unknown"),
    "contradiction": ("false", "False"),
}


@dataclass
class LLMJudge:
    """Asks the local GGUF model; reads label-word probabilities from the next-token logits."""

    llm: Any  # paraspan.models.llm.LocalLLM
    name: str = "llm"
    max_sentence_tokens: int = 256  # each sentence is cut to this many tokens (recorded)
    label_tokens: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def load(cls, model: str | os.PathLike[str] | None = None, *, threads: int | None = None,
             n_ctx: int = 2048, name: str = "llm") -> LLMJudge:
        from paraspan.models.llm import load_llm

        judge = cls(load_llm(model, n_ctx=n_ctx, n_threads=threads), name=name)
        judge.label_tokens = judge._label_tokens()
        return judge

    def _tokenize(self, text: str, special: bool = False) -> list[int]:
        return list(self.llm.llama.tokenize(text.encode("utf-8"), add_bos=False, special=special))

    def _label_tokens(self) -> dict[str, list[int]]:
        # The answer follows the assistant header directly: the bare word (or " word", which some
        # tokenizers prefer) as ONE token; a word split into pieces would share its first piece
        # ("ne" of "neither") with unrelated words, so such spellings are left out.
        out: dict[str, list[int]] = {}
        for label, words in LLM_WORDS.items():
            pieces = [self._tokenize(prefix + w) for w in words for prefix in ("", " ")]
            out[label] = sorted({ids[0] for ids in pieces if len(ids) == 1})
        # Single tokens are distinct words, so labels cannot share one; a label may still lack any.
        missing = [label for label, ids in out.items() if not ids]
        if missing:
            raise ModelError.from_code("E785", model=self.name, choices=", ".join(missing))
        return out

    def _prompt(self, premise: str, hypothesis: str) -> tuple[list[int], bool]:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        cut = False
        sentences = []
        for text in (premise, hypothesis):
            ids = self._tokenize(" ".join(text.split()))
            if len(ids) > self.max_sentence_tokens:
                cut = True
                text = self.llm.llama.detokenize(ids[: self.max_sentence_tokens]).decode("utf-8", "ignore")
            sentences.append(" ".join(text.split()))
        user = f"{LLM_INSTRUCTION}Premise: {sentences[0]}\nHypothesis: {sentences[1]}\nAnswer:"
        messages: Any = [{"role": "system", "content": LLM_SYSTEM}, {"role": "user", "content": user}]
        llama = self.llm.llama
        template = llama.metadata.get("tokenizer.chat_template", "")
        if template:
            eos = llama.detokenize([llama.token_eos()]).decode("utf-8", "ignore")
            bos = llama.detokenize([llama.token_bos()]).decode("utf-8", "ignore") if llama.token_bos() >= 0 else ""
            rendered = Jinja2ChatFormatter(template, eos_token=eos, bos_token=bos)(messages=messages).prompt
        else:  # a base model: plain text
            rendered = f"{LLM_SYSTEM}\n\n{user}"
        return self._tokenize(rendered, special=True), cut

    def _next_token_logits(self, tokens: list[int]) -> np.ndarray:
        import llama_cpp

        llama = self.llm.llama
        if len(tokens) >= llama.n_ctx():
            raise ModelError.from_code("E786", n_tokens=len(tokens), n_ctx=llama.n_ctx())
        # Reuse the KV cache for the shared prefix (instruction and examples); at least the last
        # token is evaluated again so that its logits are fresh.
        cached = llama.input_ids[: llama.n_tokens]
        common = 0
        limit = min(len(cached), len(tokens) - 1)
        while common < limit and cached[common] == tokens[common]:
            common += 1
        llama.n_tokens = common
        llama.eval(tokens[common:])
        pointer = llama_cpp.llama_get_logits_ith(llama.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(llama.n_vocab(),)).astype(np.float64)

    def judge(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Judgements:
        _check_lengths(premises, hypotheses)
        n = len(premises)
        if n == 0:
            return _empty()
        if not self.label_tokens:
            self.label_tokens = self._label_tokens()
        probs = np.zeros((n, 3), dtype=np.float32)
        truncated = np.zeros(n, dtype=bool)
        for i, (premise, hypothesis) in enumerate(zip(premises, hypotheses, strict=True)):
            tokens, truncated[i] = self._prompt(premise, hypothesis)
            logits = self._next_token_logits(tokens)
            # log-sum-exp over each label's tokens, then a softmax over the three labels: the
            # probability of each answer given that the answer is one of the three words.
            scores = np.array([np.logaddexp.reduce(logits[self.label_tokens[label]]) for label in LABELS])
            scores = np.exp(scores - scores.max())
            probs[i] = scores / scores.sum()
        return Judgements(probs, truncated)


# --------------------------------------------------------------------------- hub


_HUB_NAMES = {"entailment": "entailment", "entail": "entailment", "neutral": "neutral",
              "contradiction": "contradiction", "contradict": "contradiction",
              "not_entailment": "not_entailment", "non_entailment": "not_entailment",
              "not entailment": "not_entailment"}


def map_hub_labels(id2label: dict[int, str]) -> dict[str, list[int]]:
    """Column indices of the model's logits for each of :data:`LABELS` (plus ``not_entailment``).

    Raises :class:`ModelError` when the names do not say which column is which (``LABEL_0`` ...).
    """
    mapping: dict[str, list[int]] = {}
    for index, raw in id2label.items():
        key = _HUB_NAMES.get(str(raw).strip().lower())
        if key is None:
            raise ModelError.from_code("E787", problem=f"cannot map the model's label {raw!r} to "
                                       "entailment/neutral/contradiction",
                                       fix="use an NLI model whose config.id2label names its classes"
                                       " (e.g. roberta-large-mnli)")
        mapping.setdefault(key, []).append(int(index))
    if "entailment" not in mapping or not ({"neutral", "contradiction"} & set(mapping) or "not_entailment" in mapping):
        raise ModelError.from_code("E787", problem=f"the model's labels {sorted(id2label.values())} lack entailment"
                                   " or its alternatives",
                                   fix="use a 3-way (or entailment / not_entailment) NLI classifier")
    return mapping


def _hub_offline() -> bool:
    return any(os.environ.get(k, "").strip().lower() in ("1", "true", "yes", "on")
               for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def _hub_model(tokenizer_cls: Any, model_cls: Any, model_id: str, *, cache_only: bool) -> tuple[Any, Any]:
    """The tokenizer and classifier of ``model_id``, from the local cache only or from the hub too."""
    return (tokenizer_cls.from_pretrained(model_id, local_files_only=cache_only),
            model_cls.from_pretrained(model_id, local_files_only=cache_only))


@dataclass
class HubJudge:
    """A transformers sequence classifier trained on NLI, labels mapped via ``config.id2label``.

    A 2-way model (entailment / not_entailment) puts the not-entailment mass into ``neutral``.
    """

    model: Any
    tokenizer: Any
    columns: dict[str, list[int]]
    name: str
    batch_size: int = 16
    max_length: int = 256

    @classmethod
    def load(cls, model_id: str, *, batch_size: int = 16,
             max_length: int = 256) -> HubJudge:
        try:
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError:
            raise ModelError.from_code("E360") from None
        # The local cache first (no network at all); the hub only for a model not there, unless it is
        # switched off. No probe of the network: building a judge opens no connection of its own.
        offline = _hub_offline()
        local = Path(model_id).is_dir()
        try:
            tokenizer, model = _hub_model(AutoTokenizer, AutoModelForSequenceClassification, model_id, cache_only=True)
        except (OSError, ValueError) as exc:
            if local or offline:
                why = ("the hub is switched off (HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE) and it is not in the local cache"
                       if offline and not local else str(exc).splitlines()[0][:300])
                raise ModelError.from_code("E788", model_id=model_id, why=why) from None
            try:
                tokenizer, model = _hub_model(AutoTokenizer, AutoModelForSequenceClassification, model_id,
                                              cache_only=False)
            except (OSError, ValueError) as exc2:
                why = ("it is not in the local cache and the hub did not give it (offline?): "
                       + str(exc2).splitlines()[0][:200])
                raise ModelError.from_code("E788", model_id=model_id, why=why) from None
        model.eval()
        columns = map_hub_labels(dict(model.config.id2label))
        return cls(model, tokenizer, columns, name=f"hub:{model_id}", batch_size=batch_size, max_length=max_length)

    def judge(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Judgements:
        def forward(enc: Any) -> np.ndarray:
            p = self.model(**enc).logits.float().softmax(-1).numpy()
            # the hub model's labels, summed into the three columns (a 2-way model's not_entailment → neutral)
            out = np.stack([p[:, self.columns.get(label, [])].sum(axis=1) for label in LABELS], axis=1)
            if "not_entailment" in self.columns:
                out[:, 1] += p[:, self.columns["not_entailment"]].sum(axis=1)
            return out

        return _judge_in_batches(self.tokenizer, premises, hypotheses, self.batch_size, self.max_length, forward)


def _judge_in_batches(tokenizer: Any, premises: Sequence[str], hypotheses: Sequence[str], batch_size: int,
                      max_length: int, forward: Any) -> Judgements:
    """Run ``forward(encoded batch) -> (batch, 3) probabilities`` over length-sorted batches."""
    import torch

    from paraspan.models.batching import length_sorted_batches

    _check_lengths(premises, hypotheses)
    n = len(premises)
    if n == 0:
        return _empty()
    probs = np.zeros((n, 3), dtype=np.float32)
    truncated = np.zeros(n, dtype=bool)
    # Untruncated lengths (fast tokenizer, cheap) tell which pairs get cut, and sort batches.
    full = tokenizer(list(premises), list(hypotheses), truncation=False, verbose=False)["input_ids"]
    lengths = [len(ids) for ids in full]
    for idx in length_sorted_batches(lengths, batch_size):
        enc = tokenizer([premises[i] for i in idx], [hypotheses[i] for i in idx], padding=True,
                        truncation="longest_first", max_length=max_length, return_tensors="pt")
        with torch.inference_mode():
            probs[idx] = forward(enc)
        truncated[idx] = [lengths[i] > max_length for i in idx]
    return Judgements(probs, truncated)


# --------------------------------------------------------------------------- registry


def load_cross_encoder_judge(arg: str | None = None, **options: Any) -> CrossEncoderJudge:
    """``minilm-nli`` (shipped weights) or ``minilm-nli:<folder>`` (weights from train-nli)."""
    name = f"minilm-nli:{arg}" if arg else "minilm-nli"
    return CrossEncoderJudge.load(arg, name=name, **_only(options, "batch_size", "max_length"))


def load_llm_judge(arg: str | None = None, **options: Any) -> LLMJudge:
    """``llm`` (the default local model) or ``llm:<name or .gguf path>``."""
    name = f"llm:{arg}" if arg else "llm"
    return LLMJudge.load(arg, name=name, **_only(options, "threads", "n_ctx"))


def load_hub_judge(arg: str | None = None, **options: Any) -> HubJudge:
    """``hub:<model id or local folder>``."""
    if not arg:
        raise ParaspanError.from_code("E789")
    return HubJudge.load(arg, **_only(options, "batch_size", "max_length"))


def _only(options: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k in names and v is not None}


def judges() -> Registry[Callable[..., Judge]]:
    """Judge loaders by name; the part of a spec after ':' is passed as the loader's argument."""
    reg: Registry[Callable[..., Judge]] = Registry("judges")
    reg.register("minilm-nli", "paraspan.filter.judges:load_cross_encoder_judge",
                 "MiniLM cross-encoder fine-tuned on SICK (shipped; default)")
    reg.register("llm", "paraspan.filter.judges:load_llm_judge",
                 "the local GGUF LLM, label words read from next-token logits (slow)")
    reg.register("hub", "paraspan.filter.judges:load_hub_judge",
                 "hub:<id>: a transformers NLI classifier, e.g. an MNLI RoBERTa (needs the network)")
    return reg


def load_judge(spec: str, **options: Any) -> Judge:
    """Load a judge from a spec such as ``minilm-nli``, ``llm:small`` or ``hub:roberta-large-mnli``.

    ``options``: threads (the LLM judge's), batch_size, max_length, n_ctx (each judge takes the ones it
    knows). torch's own thread count is the process's: the command line sets it.
    """
    name, _, arg = spec.strip().partition(":")
    return judges().get(name)(arg or None, **options)


def parse_judge_specs(text: str) -> list[str]:
    """``"a,b"`` → ``["a", "b"]`` (a Windows path with ':' stays one spec as long as it has no ',')."""
    specs = [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        raise ParaspanError.from_code("E729")
    if len(set(specs)) != len(specs):
        raise ParaspanError.from_code("E734", text=text)
    return specs


def recipe_of(folder: Path) -> dict[str, Any]:
    """The recipe JSON beside the weights (for reports)."""
    from paraspan.filter.nli_train import RECIPE_NAME

    path = folder / RECIPE_NAME
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
