"""The ``minilm-nli`` cross-encoder: its model, its training recipe, and loading its shipped delta.

Recipe (fixed, seeded): the packaged all-MiniLM-L6-v2 reads ``[CLS] premise [SEP] hypothesis
[SEP]``; its embeddings and lower layers stay frozen, only the top ``train_layers`` layers and a
small head on ``[CLS]`` are trained, with AdamW, linear warm-up and decay, on SICK train (3-way).
Because the lower layers are frozen and run without dropout, their outputs are computed once and
cached, so an epoch costs only the top layers: a few minutes on 2 CPU cores. Only the trained
tensors are saved (fp16 safetensors, a few MB) with a JSON recipe; loading applies them on top
of the packaged encoder.

Every labelled pair becomes one *unit* of the loss, by what its file says about it:

- 3-way NLI (SICK): the premise → hypothesis direction, cross-entropy on its label;
- 2-way (RTE): ``-log(1 - p(entailment))``, i.e. the loss does not pretend to know whether a
  not-entailment is neutral or a contradiction;
- a paraphrase (MRPC 1, STS-B ≥ ``sts_equivalent``): both directions are entailment;
- not a paraphrase (MRPC 0, STS-B ≤ ``sts_different``): not *both* directions entail,
  ``-log(1 - p_e(s1→s2)·p_e(s2→s1))`` (one of them may, e.g. when s2 only drops a detail).

The paraphrase data is there because the relation filter judges near-copies of real sentences
(a rewrite, a synonym): trained on SICK alone, the judge called "did n't notice" → "did n't
observe" a contradiction (0.96), i.e. any changed word looked like SICK's word-swap contradictions.
STS-B pairs between the two thresholds are not used.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch
from torch import nn

from paraspan.corpus.pairs import NLI_LABELS as LABELS
from paraspan.corpus.pairs import Pair, read_pair_file
from paraspan.errors import ModelError, ParaspanError
from paraspan.models.batching import length_batches, length_sorted_batches, warmup_linear_decay
from paraspan.train.loop import Epoch, Fit

# Imports flow one way: the judges load this module's model; nothing here imports the judges.
WEIGHTS_NAME = "minilm-nli.safetensors"
RECIPE_NAME = "minilm-nli.json"
FORMAT_VERSION = 1


@dataclass
class NliRecipe:
    """Everything that decides the trained weights (with the data files and the thread count)."""

    seed: int = 0
    train_layers: int = 2  # top encoder layers fine-tuned; the rest stay as packaged
    epochs: int = 3
    batch_size: int = 16
    lr: float = 1e-4  # encoder layers
    head_lr: float = 1e-3  # the freshly initialised head learns faster
    weight_decay: float = 0.01
    warmup: float = 0.1  # share of the steps with a linear warm-up
    max_length: int = 128  # word pieces per pair while training (SICK pairs are ~25)
    dropout: float = 0.1
    swap_contradictions: bool = False  # also train (s2, s1) for contradictions (symmetric)
    sts_equivalent: float = 4.0  # STS-B pairs scored at least this are paraphrases (4: "mostly equivalent")
    sts_different: float = 2.5  # ... and at most this are not (3: "roughly equivalent, important details differ")


class NliCrossEncoder(nn.Module):
    """A BERT encoder read through its ``[CLS]`` vector by a 2-layer head (tanh) into 3 logits."""

    def __init__(self, bert: Any, train_layers: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.bert: Any = bert  # a transformers BertModel
        n_layers = len(bert.encoder.layer)
        if not 1 <= train_layers <= n_layers:
            raise ParaspanError.from_code("E790", n_layers=n_layers, train_layers=train_layers)
        self.cut = n_layers - train_layers
        hidden = int(bert.config.hidden_size)
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(hidden, hidden), nn.Tanh(), nn.Dropout(dropout),
                                  nn.Linear(hidden, len(LABELS)))

    @staticmethod
    def _mask(attention_mask: torch.Tensor) -> torch.Tensor:
        # Additive mask, shape (batch, 1, 1, tokens): 0 where attended, a large negative on padding.
        return (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float32).min

    def lower(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
              token_type_ids: torch.Tensor) -> torch.Tensor:
        """Hidden states after the frozen layers."""
        h = self.bert.embeddings(input_ids=input_ids, token_type_ids=token_type_ids)
        mask = self._mask(attention_mask)
        for layer in self.bert.encoder.layer[: self.cut]:
            h = layer(h, attention_mask=mask)[0]
        return h

    def upper(self, hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Logits from the frozen layers' output (the trained part)."""
        mask = self._mask(attention_mask)
        for layer in self.bert.encoder.layer[self.cut :]:
            hidden = layer(hidden, attention_mask=mask)[0]
        return self.head(hidden[:, 0])

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> torch.Tensor:
        return self.upper(self.lower(input_ids, attention_mask, token_type_ids), attention_mask)

    def delta_parameters(self) -> list[nn.Parameter]:
        return [*self.bert.encoder.layer[self.cut :].parameters(), *self.head.parameters()]

    def delta(self) -> dict[str, torch.Tensor]:
        """The trained tensors: the top layers and the head."""
        prefixes = tuple(f"bert.encoder.layer.{i}." for i in range(self.cut, len(self.bert.encoder.layer)))
        return {k: v for k, v in self.state_dict().items() if k.startswith(prefixes) or k.startswith("head.")}


def _load_base() -> tuple[Any, nn.Module, Any]:
    """A private copy of the packaged encoder (the shared one from load_encoder must stay untouched)."""
    from paraspan.models.encoder import load_private_model

    return load_private_model()


def _base_fingerprint(resolved: Any) -> dict[str, Any]:
    weights = Path(resolved.path) / "model.safetensors"
    return {"name": resolved.name, "package": resolved.source_package,
            "weights_bytes": weights.stat().st_size if weights.is_file() else None}


def load_cross_encoder(folder: Path) -> tuple[NliCrossEncoder, Any, dict[str, Any]]:
    """The packaged encoder with the delta from ``folder`` applied; (model, tokenizer, recipe JSON)."""
    from paraspan.models.delta import apply_delta

    weights, recipe_path = folder / WEIGHTS_NAME, folder / RECIPE_NAME
    if not weights.is_file() or not recipe_path.is_file():
        raise ModelError.from_code("E791", weights_name=WEIGHTS_NAME, recipe_name=RECIPE_NAME, folder=folder)
    info = json.loads(recipe_path.read_text(encoding="utf-8"))
    if info.get("format") != FORMAT_VERSION:
        raise ModelError.from_code("E792", recipe_path=recipe_path, format=info.get("format"),
                                   format_version=FORMAT_VERSION)
    tokenizer, bert, resolved = _load_base()
    base = _base_fingerprint(resolved)
    if info.get("base", {}).get("weights_bytes") not in (None, base["weights_bytes"]):
        raise ModelError.from_code("E793", problem=f"the weights in {folder} were trained on another encoder"
                                   f" ({info['base']})", fix=f"retrain with `paraspan train-nli` on this one ({base})")
    recipe = NliRecipe(**info["recipe"])
    model = NliCrossEncoder(bert, recipe.train_layers, recipe.dropout)
    if apply_delta(model, weights, exact=model.delta().keys()):
        raise ModelError.from_code("E793", problem=f"{weights} does not match its recipe"
                                   f" (train_layers={recipe.train_layers})", fix="retrain with `paraspan train-nli`")
    model.eval()
    return model, tokenizer, info


# --------------------------------------------------------------------------- training


@dataclass
class TrainReport:
    out_dir: Path
    seconds: float
    scores: dict[str, float]
    weights_bytes: int
    examples: int
    log: list[dict[str, Any]] = field(default_factory=list)


#: unit codes besides a 3-way label index (0, 1, 2)
NOT_ENTAILMENT = -1  # one direction, 2-way "not entailment"
NOT_EQUIVALENT = -2  # two directions, not both entailment
EQUIVALENT = -3  # two directions, both entailment


def _units(pair: Pair, file: str, recipe: NliRecipe) -> list[tuple[list[tuple[str, str]], int]]:
    """The loss units of one labelled pair: (directions, code); none for an STS-B pair in between."""
    forward, both = [(pair.s1, pair.s2)], [(pair.s1, pair.s2), (pair.s2, pair.s1)]
    if "nli" in pair.gold:
        target = LABELS.index(pair.gold["nli"])
        units = [(forward, target)]
        if recipe.swap_contradictions and target == 2:
            units.append(([(pair.s2, pair.s1)], 2))
        return units
    if "nli2" in pair.gold:
        return [(forward, 0 if pair.gold["nli2"] == "entailment" else NOT_ENTAILMENT)]
    equivalent: bool | None = None
    if "paraphrase" in pair.gold:
        equivalent = bool(pair.gold["paraphrase"])
    elif "similarity" in pair.gold:
        score = float(pair.gold["similarity"])
        equivalent = True if score >= recipe.sts_equivalent else False if score <= recipe.sts_different else None
    else:
        raise ParaspanError.from_code("E794", file=file, pair_id=pair.id)
    if equivalent is None:
        return []
    return [(both, EQUIVALENT if equivalent else NOT_EQUIVALENT)]


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _encode_lower(model: NliCrossEncoder, tokenizer: Any, pairs: Sequence[tuple[str, str]],
                  max_length: int, batch_size: int = 64) -> list[torch.Tensor]:
    out: list[torch.Tensor | None] = [None] * len(pairs)
    with torch.inference_mode():
        for idx in length_sorted_batches([len(s1) + len(s2) for s1, s2 in pairs], batch_size):
            enc = tokenizer([pairs[i][0] for i in idx], [pairs[i][1] for i in idx], padding=True, truncation=True,
                            max_length=max_length, return_tensors="pt")
            hidden = model.lower(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
            for row, i in enumerate(idx):
                out[i] = hidden[row, : int(enc["attention_mask"][row].sum())].clone()
    return [h for h in out if h is not None]


def _collate(items: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    longest = max(int(x.shape[0]) for x in items)
    hidden = torch.zeros(len(items), longest, int(items[0].shape[1]))
    mask = torch.zeros(len(items), longest, dtype=torch.long)
    for i, x in enumerate(items):
        hidden[i, : x.shape[0]] = x
        mask[i, : x.shape[0]] = 1
    return hidden, mask


def _predict(model: NliCrossEncoder, cached: Sequence[torch.Tensor], batch_size: int = 64) -> torch.Tensor:
    model.eval()
    probs = torch.zeros(len(cached), len(LABELS))
    with torch.inference_mode():
        for idx in length_sorted_batches([int(h.shape[0]) for h in cached], batch_size):
            hidden, mask = _collate([cached[i] for i in idx])
            probs[idx] = model.upper(hidden, mask).softmax(-1)
    return probs


def _unit_accuracy(probs: torch.Tensor, units: Sequence[tuple[list[int], int]]) -> float:
    """Share of units decided right: a 3-way label, "not entailment", or for a pair whether both
    directions are entailment (the relation filter's ``equivalence``) or not."""
    pred = probs.argmax(-1).tolist()
    hits = []
    for rows, code in units:
        if code >= 0:
            hits.append(pred[rows[0]] == code)
        elif code == NOT_ENTAILMENT:
            hits.append(pred[rows[0]] != 0)
        else:
            both = all(pred[r] == 0 for r in rows)
            hits.append(both if code == EQUIVALENT else not both)
    return sum(hits) / max(1, len(hits))


def _loss(log_probs: torch.Tensor, units: Sequence[tuple[list[int], int]]) -> torch.Tensor:
    """Mean loss of the units; ``log_probs`` rows are the units' directions."""
    terms = []
    for rows, code in units:
        if code >= 0:
            terms.append(-log_probs[rows[0], code])
        elif code == NOT_ENTAILMENT:  # -log(1 - p(entailment)) = -log(p(neutral) + p(contra))
            terms.append(-torch.logsumexp(log_probs[rows[0], 1:], dim=-1))
        elif code == EQUIVALENT:  # both directions' cross-entropy, as two 3-way units would give
            terms.append(-(log_probs[rows[0], 0] + log_probs[rows[1], 0]))
        else:  # -log(1 - p_e(s1→s2) · p_e(s2→s1)), kept away from log(0)
            both = (log_probs[rows[0], 0] + log_probs[rows[1], 0]).exp().clamp(max=1 - 1e-6)
            terms.append(-torch.log1p(-both))
    return torch.stack(terms).mean()


#: a loss unit: rows into the encoded directions, and what the pair's file says about them (a label or a code)
_Unit = tuple[list[int], int]


def train_nli(
    train_files: Sequence[Path],
    out_dir: Path,
    recipe: NliRecipe | None = None,
    *,
    dev_files: Sequence[Path] = (),
    log: Callable[[str], None] | None = None,
) -> TrainReport:
    """Train the cross-encoder on ``train_files`` (SICK / RTE / pair JSONL with ``nli``), score it on
    ``dev_files`` after each epoch, and write the delta + recipe JSON into ``out_dir``."""
    from paraspan.models.delta import save_delta

    recipe = recipe or NliRecipe()
    say = log or (lambda _msg: None)
    torch.manual_seed(recipe.seed)
    rng = random.Random(recipe.seed)
    start = time.perf_counter()

    tokenizer, bert, resolved = _load_base()
    model = NliCrossEncoder(bert, recipe.train_layers, recipe.dropout)
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    for parameter in model.delta_parameters():
        parameter.requires_grad_(True)
    texts, units, data_info = _training_units(train_files, recipe)

    model.eval()  # the frozen part runs without dropout, so its outputs can be cached
    cached = _encode_lower(model, tokenizer, texts, recipe.max_length)
    dev_sets = []
    for path in dev_files:
        dev_texts, dev_units, _ = _read_units(Path(path), recipe)
        dev_sets.append((Path(path).stem, _encode_lower(model, tokenizer, dev_texts, 256), dev_units))
    say(f"encoded {len(cached)} training directions ({len(units)} units) through the {model.cut} frozen layers "
        f"in {time.perf_counter() - start:.0f}s")
    history, scores = _fit(model, recipe, units, cached, dev_sets, rng, start, say)

    seconds = time.perf_counter() - start
    out_dir.mkdir(parents=True, exist_ok=True)
    weights_path = save_delta(model.delta(), out_dir / WEIGHTS_NAME, {"format": str(FORMAT_VERSION)})
    _write_recipe(out_dir, weights_path, {
        "format": FORMAT_VERSION,
        "what": "minilm-nli: top-layer + head delta for the packaged all-MiniLM-L6-v2 (fp16)",
        "base": _base_fingerprint(resolved),
        "recipe": asdict(recipe),
        "data": data_info,
        "dev": {"files": [Path(p).name for p in dev_files],
                "metric": "accuracy (3-way; 2-way files: entailment vs not; paraphrase files: both directions "
                          "entailment or not)", "scores": scores},
        "history": history,
        "training": {"seconds": round(seconds, 1), "threads": torch.get_num_threads(),
                     "torch": torch.__version__, "machine": platform.machine(),
                     "date": datetime.now(timezone.utc).strftime("%Y-%m-%d")},
        "labels": list(LABELS),
    })
    return TrainReport(out_dir, seconds, scores, weights_path.stat().st_size, len(cached), history)


def _read_units(path: Path, recipe: NliRecipe) -> tuple[list[tuple[str, str]], list[_Unit], int]:
    """A file's directions (to encode), its units (rows into those directions) and its number of pairs."""
    pairs = list(read_pair_file(path))
    texts: list[tuple[str, str]] = []
    units: list[_Unit] = []
    for pair in pairs:
        for directions, code in _units(pair, str(path), recipe):
            units.append((list(range(len(texts), len(texts) + len(directions))), code))
            texts.extend(directions)
    return texts, units, len(pairs)


def _training_units(train_files: Sequence[Path],
                    recipe: NliRecipe) -> tuple[list[tuple[str, str]], list[_Unit], list[dict[str, Any]]]:
    """The directions and units of all ``train_files``, and what the recipe JSON records of each file;
    E736 when they hold no unit."""
    texts: list[tuple[str, str]] = []
    units: list[_Unit] = []
    data_info = []
    for path in train_files:
        file_texts, file_units, n_pairs = _read_units(Path(path), recipe)
        units += [([r + len(texts) for r in rows], code) for rows, code in file_units]
        texts += file_texts
        data_info.append({"file": Path(path).name, "pairs": n_pairs, "units": len(file_units),
                          "sha256": _sha256(Path(path))})
    if not units:
        raise ParaspanError.from_code("E736")
    return texts, units, data_info


def _fit(model: NliCrossEncoder, recipe: NliRecipe, units: Sequence[_Unit], cached: Sequence[torch.Tensor],
         dev_sets: Sequence[tuple[str, Sequence[torch.Tensor], Sequence[_Unit]]], rng: random.Random, start: float,
         say: Callable[[str], None]) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Train the top layers and the head on the cached lower-layer states; each epoch's entry, and the last
    epoch's dev scores."""
    optimizer = torch.optim.AdamW(
        [{"params": [p for n, p in model.named_parameters() if n.startswith("bert.") and p.requires_grad],
          "lr": recipe.lr},
         {"params": list(model.head.parameters()), "lr": recipe.head_lr}],
        weight_decay=recipe.weight_decay,
    )
    per_epoch = math.ceil(len(units) / recipe.batch_size)
    total = recipe.epochs * per_epoch
    scheduler = warmup_linear_decay(optimizer, total, recipe.warmup)

    lengths = [max(int(cached[r].shape[0]) for r in rows) for rows, _code in units]

    def batches(_epoch: int) -> list[list[int]]:
        # Batches of units of similar length (little padding), in a seeded random order.
        order = list(range(len(units)))
        rng.shuffle(order)
        chosen = length_batches(lengths, recipe.batch_size, order=order, window=recipe.batch_size * 20)
        rng.shuffle(chosen)
        return chosen

    def loss(batch: list[int]) -> tuple[torch.Tensor, float]:
        rows = [r for u in batch for r in units[u][0]]
        at = {r: i for i, r in enumerate(rows)}
        hidden, mask = _collate([cached[r] for r in rows])
        log_probs = model.upper(hidden, mask).log_softmax(-1)
        return _loss(log_probs, [([at[r] for r in units[u][0]], units[u][1]) for u in batch]), 1.0

    history: list[dict[str, Any]] = []
    scores: dict[str, float] = {}

    def evaluate(end: Epoch) -> None:
        scores.clear()
        scores.update({name: round(_unit_accuracy(_predict(model, dev_cached), dev_units), 4)
                       for name, dev_cached, dev_units in dev_sets})
        entry = {"epoch": end.epoch, "loss": round(end.loss, 4), **scores,
                 "seconds": round(time.perf_counter() - start, 1)}
        history.append(entry)
        say(json.dumps(entry))

    Fit(model, optimizer, batches, loss, epochs=recipe.epochs, scheduler=scheduler, clip_norm=1.0).run(evaluate)
    return history, scores


def _write_recipe(out_dir: Path, weights_path: Path, info: dict[str, Any]) -> None:
    """The recipe JSON beside the delta, both readable by anyone (they are shipped)."""
    from paraspan.corpus.jsonl import atomic_write

    with atomic_write(out_dir / RECIPE_NAME) as handle:
        handle.write(json.dumps(info, indent=2) + "\n")
    for path in (weights_path, out_dir / RECIPE_NAME):
        path.chmod(0o644)  # temporary files are private (0600); these are meant to be shipped and read
