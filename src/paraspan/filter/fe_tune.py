"""Fine-tuning the FE-type classifier: the top encoder layers trained together with the head.

The frozen-feature head of :mod:`paraspan.filter.fe_classifier` stops near 82% on FrameNet 1.5
test spans. The paper (Cui & Swayamdipta 2024, Appendix D) fine-tunes the whole encoder; here,
as for the ``minilm-nli`` judge, only the top ``train_layers`` layers of the packaged
all-MiniLM-L6-v2 are trained with the head, so what ships is a small delta (fp16, a few MB) on
top of the packaged encoder, and prediction runs through the same
:func:`~paraspan.filter.fe_classifier.featurize` as before, with the tuned encoder.

The work is split so the expensive part can run on any machine with torch (a GPU if one is at
hand), without paraspan's other dependencies or the FrameNet release:

1. :func:`prepare` marks and tokenizes every instance once and records, per instance, the token
   ranges that :func:`featurize` pools (span, opening marker, LU, frame name);
2. :func:`write_bundle` stores the prepared sets with a compact vocabulary (only the word pieces
   that occur) and the base encoder cut to that vocabulary, in fp16;
3. :func:`train_bundle` (also ``python -m paraspan.filter.fe_tune BUNDLE OUT``) trains, picks the
   epoch and the prior weight on dev, and writes ``fe-head.npz`` + ``fe-encoder.safetensors``.
"""

from __future__ import annotations

import json
import math
import platform
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paraspan.errors import ModelError
from paraspan.filter.fe_classifier import NOT_FE, FEClassifier, FEInstance, mark, quiet
from paraspan.filter.fe_train import evaluate_split

if TYPE_CHECKING:
    import torch

    from paraspan.train.loop import Epoch

__all__ = ["DELTA_FILE", "FETuneRecipe", "build_bundle", "prepare", "train_bundle", "write_bundle"]

DELTA_FILE = "fe-encoder.safetensors"
BUNDLE_DATA = "fe-data.npz"
BUNDLE_BASE = "base-compact.safetensors"
BUNDLE_META = "bundle.json"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class FETuneRecipe:
    """Everything that decides the tuned weights (with the data and the seed)."""

    train_layers: int = 2  # top encoder layers trained; the rest stay as packaged
    epochs: int = 3
    batch_size: int = 64
    lr: float = 5e-5  # encoder layers
    head_lr: float = 1e-3  # the fresh head learns faster
    weight_decay: float = 0.01
    warmup: float = 0.06  # share of the steps with a linear warm-up
    hidden: int = 512
    dropout: float = 0.3
    exemplar_every: int = 1  # every LU exemplar sentence (1 in N when N > 1)
    none_rate: float = 0.11  # random NOT_FE spans per real span
    prior_weights: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0)
    seed: int = 0
    max_length: int = 256  # as the Encoder used at prediction


# ----------------------------------------------------------------------------- preparation


def _ranges(offsets: Sequence[tuple[int, int]], special: Sequence[int], regions: Sequence[tuple[int, int]],
            fe_start: int) -> list[int]:
    """Token ranges [lo, hi) of each character region, and the opening marker's token (-1: none),
    chosen exactly as :func:`featurize` chooses them."""
    kept = [j for j, s in enumerate(special) if not s]
    out: list[int] = []
    for k, (a, b) in enumerate(regions):
        inside = [j for j in kept if offsets[j][0] >= a and offsets[j][1] <= b and offsets[j][1] > offsets[j][0]]
        out.extend((inside[0], inside[-1] + 1) if inside else (0, 0))
        if k == 0:
            before = [j for j in kept if offsets[j][1] <= fe_start]
            out.append(before[-1] if before else -1)
    return out  # fe_lo, fe_hi, opener, lu_lo, lu_hi, frame_lo, frame_hi


def prepare(instances: Sequence[FEInstance], tokenizer: Any, labels: Sequence[str], frames: Sequence[str],
            max_length: int = 256, chunk: int = 2048) -> dict[str, np.ndarray]:
    """Token ids (flat, int32), lengths, pooled ranges, position numbers, label and frame indices."""
    from paraspan.filter.fe_classifier import _position

    label_index = {n: i for i, n in enumerate(labels)}
    frame_index = {n: i for i, n in enumerate(frames)}
    ids: list[np.ndarray] = []
    lengths = np.zeros(len(instances), dtype=np.int32)
    ranges = np.zeros((len(instances), 7), dtype=np.int32)
    for begin in range(0, len(instances), chunk):
        batch = instances[begin:begin + chunk]
        marked = [mark(inst) for inst in batch]
        enc = tokenizer([m[0] for m in marked], truncation=True, max_length=max_length,
                        return_offsets_mapping=True, return_special_tokens_mask=True)
        for row, (_, fe_r, lu_r, fr_r) in enumerate(marked):
            row_ids = enc["input_ids"][row]
            ids.append(np.asarray(row_ids, dtype=np.int32))
            lengths[begin + row] = len(row_ids)
            ranges[begin + row] = _ranges(enc["offset_mapping"][row], enc["special_tokens_mask"][row],
                                          (fe_r, lu_r, fr_r), fe_r[0])
    return {
        "ids": np.concatenate(ids) if ids else np.zeros(0, dtype=np.int32),
        "lengths": lengths,
        "ranges": ranges,
        "position": np.asarray([_position(i) for i in instances], dtype=np.float32).reshape(-1, 3),
        "label": np.asarray([label_index.get(i.label or "", -1) for i in instances], dtype=np.int32),
        "frame": np.asarray([frame_index.get(i.frame, -1) for i in instances], dtype=np.int32),
    }


def write_bundle(folder: str | Path, sets: dict[str, dict[str, np.ndarray]], base_weights: str | Path,
                 base_config: str | Path, meta: dict[str, Any]) -> Path:
    """The prepared ``sets`` with word-piece ids remapped to the pieces that occur, and the base
    encoder (fp16) cut to them: what :func:`train_bundle` needs, and nothing else."""
    from safetensors.numpy import load_file, save_file

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    used = np.unique(np.concatenate([s["ids"] for s in sets.values()]))
    remap = np.full(int(used.max()) + 1, -1, dtype=np.int32)
    remap[used] = np.arange(len(used), dtype=np.int32)
    arrays: dict[str, np.ndarray] = {}
    for name, prepared in sets.items():
        for key, value in prepared.items():
            arrays[f"{name}.{key}"] = remap[value].astype(np.uint16) if key == "ids" else value
    np.savez_compressed(out / BUNDLE_DATA, **arrays)  # type: ignore[arg-type]
    base = load_file(str(base_weights))
    compact = {}
    for key, value in base.items():
        if key.endswith("word_embeddings.weight"):
            value = value[used]
        if "pooler" in key or key.endswith("position_ids"):
            continue
        compact[key.removeprefix("bert.")] = value.astype(np.float16) if value.dtype == np.float32 else value
    save_file(compact, str(out / BUNDLE_BASE))
    config = json.loads(Path(base_config).read_text(encoding="utf-8"))
    config["vocab_size"] = len(used)
    (out / BUNDLE_META).write_text(json.dumps({"format": FORMAT_VERSION, "config": config, **meta}, indent=1),
                                   encoding="utf-8")
    return out


def build_bundle(release: str | Path, splits: str | Path, out: str | Path, recipe: FETuneRecipe | None = None,
                 log: Callable[[str], None] = quiet) -> Path:
    """Read FrameNet train (+ exemplars) and dev, prepare them, and write a training bundle."""
    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.filter.fe_classifier import instances_from_sentence
    from paraspan.filter.fe_train import FERecipe, _load_split, training_instances
    from paraspan.models.encoder import load_private_model

    recipe = recipe or FETuneRecipe()
    release, splits = Path(release), Path(splits)
    index = FrameIndex.load(release)
    train, exemplar = training_instances(release, splits, FERecipe(exemplar_every=recipe.exemplar_every,
                                                                   none_rate=recipe.none_rate, seed=recipe.seed), log)
    dev: list[FEInstance] = []
    for sentence in _load_split(release, splits, "dev"):
        dev.extend(instances_from_sentence(sentence, none_rate=recipe.none_rate, seed=recipe.seed + 1))
    labels = sorted({i.label for i in train if i.label} | {NOT_FE})
    frames = sorted(set(index.frames) | {i.frame for i in train} | {i.frame for i in dev})
    frame_fes = {name: list(frame.fes) for name, frame in index.frames.items()}
    tokenizer, _, resolved = load_private_model()
    started = time.perf_counter()
    sets = {"train": prepare(train, tokenizer, labels, frames, recipe.max_length),
            "dev": prepare(dev, tokenizer, labels, frames, recipe.max_length)}
    log(f"prepared {len(train):,} train and {len(dev):,} dev spans in {time.perf_counter() - started:.0f}s")
    weights = Path(resolved.path) / "model.safetensors"
    meta = {"labels": labels, "frames": frames, "frame_fes": frame_fes, "recipe": asdict(recipe),
            "base": {"name": resolved.name, "package": resolved.source_package,
                     "weights_bytes": weights.stat().st_size},
            "data": {"release": release.name, "train_spans": len(train), "exemplar_spans": exemplar,
                     "none_spans": sum(1 for i in train if i.label == NOT_FE), "dev_spans": len(dev)}}
    return write_bundle(out, sets, weights, Path(resolved.path) / "config.json", meta)


# ----------------------------------------------------------------------------- the model


def _layers(bert: Any) -> Any:
    return bert.encoder.layer


class FESpanModel:
    """Factory for the torch module (kept lazy: torch is imported only when a model is built)."""

    @staticmethod
    def build(bert: Any, train_layers: int, n_labels: int, hidden: int, dropout: float,
              mean: np.ndarray, scale: np.ndarray) -> Any:
        import torch
        from torch import nn

        class _Model(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.bert = bert
                self.cut = len(_layers(bert)) - train_layers
                dim = int(bert.config.hidden_size)
                # the same head as the frozen-feature classifier, so it saves as fe-head.npz
                self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(4 * dim + 3, hidden), nn.ReLU(),
                                          nn.Dropout(dropout), nn.Linear(hidden, n_labels))
                self.register_buffer("mean", torch.from_numpy(mean.astype(np.float32)))
                self.register_buffer("scale", torch.from_numpy(scale.astype(np.float32)))
                for p in self.bert.parameters():
                    p.requires_grad_(False)
                for p in _layers(bert)[self.cut:].parameters():
                    p.requires_grad_(True)

            def train(self, mode: bool = True) -> _Model:
                super().train(mode)
                # frozen parts run as at prediction: no dropout
                self.bert.embeddings.eval()
                for layer in _layers(self.bert)[: self.cut]:
                    layer.eval()
                return self

            def features(self, ids: torch.Tensor, attention: torch.Tensor, ranges: torch.Tensor,
                         position: torch.Tensor) -> torch.Tensor:
                states = self.bert(input_ids=ids, attention_mask=attention).last_hidden_state.float()
                steps = torch.arange(states.shape[1], device=states.device)

                def pool(lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
                    inside = ((steps[None] >= lo[:, None]) & (steps[None] < hi[:, None])).float()
                    return (states * inside[..., None]).sum(1) / inside.sum(1, keepdim=True).clamp(min=1.0)

                opener_at = ranges[:, 2].clamp(min=0)
                opener = states[torch.arange(len(ids), device=states.device), opener_at]
                opener = opener * (ranges[:, 2] >= 0).float()[:, None]
                return torch.cat([pool(ranges[:, 0], ranges[:, 1]), opener, pool(ranges[:, 3], ranges[:, 4]),
                                  pool(ranges[:, 5], ranges[:, 6]), position], dim=1)

            def forward(self, ids: torch.Tensor, attention: torch.Tensor, ranges: torch.Tensor,
                        position: torch.Tensor) -> torch.Tensor:
                mean: Any = self.mean
                scale: Any = self.scale
                x = (self.features(ids, attention, ranges, position) - mean) / scale
                return self.head(x)

            def delta(self) -> dict[str, torch.Tensor]:
                prefixes = tuple(f"encoder.layer.{i}." for i in range(self.cut, len(_layers(self.bert))))
                return {k: v.detach().to("cpu", torch.float16).contiguous()
                        for k, v in self.bert.state_dict().items() if k.startswith(prefixes)}

        return _Model()


# ----------------------------------------------------------------------------- training


def _batches(data: dict[str, np.ndarray], order: np.ndarray, batch_size: int,
             device: Any) -> Any:
    """Padded tensors for each batch of ``order`` (instances sorted by length inside a batch window)."""
    import torch

    starts = np.concatenate([[0], np.cumsum(data["lengths"])[:-1]])
    for begin in range(0, len(order), batch_size):
        idx = order[begin:begin + batch_size]
        width = int(data["lengths"][idx].max())
        ids = np.zeros((len(idx), width), dtype=np.int64)
        attention = np.zeros((len(idx), width), dtype=np.int64)
        for row, i in enumerate(idx):
            n = int(data["lengths"][i])
            ids[row, :n] = data["ids"][starts[i]:starts[i] + n]
            attention[row, :n] = 1
        yield idx, (torch.from_numpy(ids).to(device), torch.from_numpy(attention).to(device),
                    torch.from_numpy(data["ranges"][idx].astype(np.int64)).to(device),
                    torch.from_numpy(data["position"][idx]).to(device))


def _length_order(lengths: np.ndarray, rng: np.random.Generator | None, batch_size: int) -> np.ndarray:
    """Shuffled (or not), then sorted by length inside windows of 50 batches: less padding."""
    from paraspan.models.batching import length_batches

    order = rng.permutation(len(lengths)) if rng is not None else np.arange(len(lengths))
    batches = length_batches(lengths, batch_size, order=order, window=batch_size * 50, even=True)
    if rng is not None:
        rng.shuffle(batches)
    return np.concatenate([np.asarray(b, dtype=order.dtype) for b in batches]) if batches else order


def _features(model: Any, data: dict[str, np.ndarray], device: Any, batch_size: int = 256,
              autocast: bool = False) -> np.ndarray:
    import torch

    out = np.zeros((len(data["lengths"]), model.head[1].in_features), dtype=np.float32)
    model.eval()
    with torch.inference_mode(), torch.autocast(device_type=str(device).split(":")[0], dtype=torch.bfloat16,
                                                 enabled=autocast):
        for idx, batch in _batches(data, _length_order(data["lengths"], None, batch_size), batch_size, device):
            out[idx] = model.features(*batch).float().cpu().numpy()
    return out


def _masks(frames: np.ndarray, labels: np.ndarray, frame_fes: list[list[int]], n_labels: int,
           not_fe: int) -> np.ndarray:
    out = np.zeros((len(frames), n_labels), dtype=bool)
    for row, (f, y) in enumerate(zip(frames.tolist(), labels.tolist(), strict=True)):
        if f < 0:
            out[row] = True
        else:
            out[row, frame_fes[f]] = True
            out[row, not_fe] = True
        if y >= 0:
            out[row, y] = True  # a gold FE that the frame file does not list stays learnable
    return out


def _snapshot(model: Any, labels: list[str], frame_fes: dict[str, list[str]]) -> FEClassifier:
    from paraspan.filter.fe_train import _snapshot as head_snapshot

    return head_snapshot(model.head, model.mean.cpu().numpy(), model.scale.cpu().numpy(), labels, frame_fes)


def _subset(data: dict[str, np.ndarray], idx: np.ndarray) -> dict[str, np.ndarray]:
    """The instances ``idx`` of a prepared set (``ids`` is ragged: cut by ``lengths``)."""
    starts = np.concatenate([[0], np.cumsum(data["lengths"])[:-1]])
    out = {k: v[idx] for k, v in data.items() if k != "ids"}
    out["ids"] = np.concatenate([data["ids"][starts[i]:starts[i] + data["lengths"][i]] for i in idx])
    return out


def _stored_recipe(meta: dict[str, Any]) -> dict[str, Any]:
    """The recipe fields a bundle records (JSON lists back to tuples)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in meta.get("recipe", {}).items()}


def _instances_for_eval(data: dict[str, np.ndarray], labels: list[str], frames: list[str]) -> list[FEInstance]:
    """Stand-ins carrying only what evaluate_split reads (frame and label)."""
    return [FEInstance("", (0, 0), (0, 0), frames[f] if f >= 0 else "", labels[y] if y >= 0 else None)
            for f, y in zip(data["frame"].tolist(), data["label"].tolist(), strict=True)]


def train_bundle(bundle: str | Path, out: str | Path, *, device: str = "cpu", recipe: FETuneRecipe | None = None,
                 limit: int | None = None, log: Callable[[str], None] = quiet) -> dict[str, Any]:
    """Train on a bundle from :func:`write_bundle`; writes ``fe-head.npz`` + ``fe-encoder.safetensors``."""
    import torch

    from paraspan.models.batching import warmup_linear_decay
    from paraspan.train.loop import Fit

    started = time.perf_counter()
    folder = Path(bundle)
    meta = json.loads((folder / BUNDLE_META).read_text(encoding="utf-8"))
    if meta.get("format") != FORMAT_VERSION:
        raise ModelError.from_code("E822", folder=folder, format=meta.get("format"), format_version=FORMAT_VERSION)
    recipe = recipe or FETuneRecipe(**_stored_recipe(meta))
    torch.manual_seed(recipe.seed)
    rng = np.random.default_rng(recipe.seed)
    train, dev = _read_sets(folder)
    if limit is not None:  # a smoke run
        train = _subset(train, np.sort(rng.permutation(len(train["lengths"]))[:limit]))
    labels: list[str] = meta["labels"]
    frames: list[str] = meta["frames"]
    label_index = {n: i for i, n in enumerate(labels)}
    frame_fes = [[label_index[n] for n in meta["frame_fes"].get(f, []) if n in label_index] for f in frames]
    not_fe = label_index[NOT_FE]
    bert = _base_encoder(folder, meta)
    dev_t = torch.device(device)
    model = _standardised(bert, recipe, len(labels), train, rng, dev_t)
    run = _Tuning(model, dev_t, recipe, meta, train, dev,
                  masks=torch.from_numpy(_masks(train["frame"], train["label"], frame_fes, len(labels), not_fe)),
                  targets=torch.from_numpy(train["label"].astype(np.int64)), rng=rng, target=Path(out),
                  started=started, log=log)
    encoder_params = [p for p in model.bert.parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{"params": encoder_params, "lr": recipe.lr},
                             {"params": model.head.parameters(), "lr": recipe.head_lr}],
                            weight_decay=recipe.weight_decay)
    steps = recipe.epochs * math.ceil(len(run.targets) / recipe.batch_size)
    sched = warmup_linear_decay(opt, steps, recipe.warmup)
    Fit(model, opt, run.batches, run.loss, epochs=recipe.epochs, scheduler=sched, clip_norm=1.0,
        after_step=run.progress).run(run.end_epoch)
    if run.info:  # the full history, also of epochs after the best
        run.info["history"] = run.history
        (run.target / "fe-tune-history.json").write_text(json.dumps(run.info, indent=1), encoding="utf-8")
    return run.info


def _read_sets(folder: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """A bundle's prepared train and dev sets (word-piece ids as int64)."""
    with np.load(folder / BUNDLE_DATA, allow_pickle=False) as raw:
        arrays = {k: raw[k] for k in raw.files}
    sets = {name: {k.split(".", 1)[1]: v for k, v in arrays.items() if k.startswith(name + ".")}
            for name in ("train", "dev")}
    for data in sets.values():
        data["ids"] = data["ids"].astype(np.int64)
    return sets["train"], sets["dev"]


def _base_encoder(folder: Path, meta: dict[str, Any]) -> Any:
    """The bundle's base encoder (cut to its vocabulary), in float32; E823 when its weights do not fit."""
    from safetensors.torch import load_file
    from transformers import BertConfig, BertModel

    config = BertConfig(**{k: v for k, v in meta["config"].items() if k not in ("architectures", "model_type")})
    bert = BertModel(config, add_pooling_layer=False)
    state = {k: v.float() for k, v in load_file(str(folder / BUNDLE_BASE)).items()}
    missing, unexpected = bert.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    unexpected = [k for k in unexpected if not k.endswith("position_ids")]
    if missing or unexpected:
        raise ModelError.from_code("E823", missing=missing[:3], unexpected=unexpected[:3])
    return bert


def _standardised(bert: Any, recipe: FETuneRecipe, n_labels: int, train: dict[str, np.ndarray],
                  rng: np.random.Generator, device: Any) -> Any:
    """The model to tune, its head's input standardised with statistics of the untuned features of a
    sample of ``train`` (a fixed affine map)."""
    import torch

    dim = bert.config.hidden_size
    model = FESpanModel.build(bert, recipe.train_layers, n_labels, recipe.hidden, recipe.dropout,
                              np.zeros(4 * dim + 3, np.float32), np.ones(4 * dim + 3, np.float32)).to(device)
    sample = _subset(train, np.sort(rng.permutation(len(train["lengths"]))[:20000]))
    first = _features(model, sample, device, autocast=device.type == "cuda")
    model.mean.copy_(torch.from_numpy(first.mean(0)))
    model.scale.copy_(torch.from_numpy(first.std(0) + 1e-4))
    return model


@dataclass
class _Tuning:
    """One fine-tuning run: what the training loop's callbacks read, and what they keep (the history,
    the best dev accuracy and the kept model's info)."""

    model: Any
    device: Any  # a torch.device
    recipe: FETuneRecipe
    meta: dict[str, Any]
    train: dict[str, np.ndarray]
    dev: dict[str, np.ndarray]
    masks: Any  # (train spans, labels): the labels each span's frame allows
    targets: Any
    rng: np.random.Generator
    target: Path
    started: float
    log: Callable[[str], None]
    history: list[dict[str, Any]] = field(default_factory=list)
    best: float = -1.0
    info: dict[str, Any] = field(default_factory=dict)
    running: dict[str, float] = field(default_factory=lambda: {"total": 0.0, "seen": 0.0, "t0": time.perf_counter()})

    def __post_init__(self) -> None:
        labels, frames = self.meta["labels"], self.meta["frames"]
        self.autocast = self.device.type == "cuda"
        self.dev_items = _instances_for_eval(self.dev, labels, frames)
        self.prior = {(frames[f], labels[y]): n for (f, y), n in
                      Counter(zip(self.train["frame"].tolist(), self.train["label"].tolist(), strict=True)).items()
                      if f >= 0 and y >= 0 and labels[y] != NOT_FE}

    def batches(self, epoch: int) -> Any:
        self.running.update(total=0.0, seen=0.0, t0=time.perf_counter())
        return _batches(self.train, _length_order(self.train["lengths"], self.rng, self.recipe.batch_size),
                        self.recipe.batch_size, self.device)

    def loss(self, item: tuple[np.ndarray, tuple[Any, ...]]) -> tuple[Any, float]:
        import torch

        idx, batch = item
        with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16, enabled=self.autocast):
            logits = self.model(*batch).float()
        logits = logits.masked_fill(~self.masks[idx].to(self.device), -1e9)
        return torch.nn.functional.cross_entropy(logits, self.targets[idx].to(self.device)), len(idx)

    def progress(self, n: int, value: float, weight: float) -> None:
        running = self.running
        running["total"] += value * weight
        running["seen"] += weight
        if n % 500 == 0:
            self.log(f"epoch {len(self.history) + 1} step {n}: loss {running['total'] / max(running['seen'], 1):.3f} "
                     f"({running['seen'] / max(time.perf_counter() - running['t0'], 1e-9):.0f} spans/s)")

    def end_epoch(self, end: Epoch) -> float:
        t0 = self.running["t0"]
        x_dev = _features(self.model, self.dev, self.device, autocast=self.autocast)
        clf = _snapshot(self.model, self.meta["labels"], self.meta["frame_fes"])
        scores = evaluate_split(clf, self.dev_items, x_dev)
        entry = {"epoch": end.epoch, "loss": round(end.loss, 4), "seconds": round(time.perf_counter() - t0, 1)}
        self.history.append({**entry, **{k: round(v, 4) for k, v in scores.items()}})
        self.log(f"epoch {end.epoch}: loss {end.loss:.3f}, dev accuracy {scores['accuracy']:.4f} "
                 f"(FE spans {scores['fe_accuracy']:.4f}) in {time.perf_counter() - t0:.0f}s")
        if scores["accuracy"] > self.best:
            # the best epoch so far goes to disk at once: a run cut short still leaves a model
            self.best = scores["accuracy"]
            self._keep(end, clf, x_dev)
        return scores["accuracy"]

    def _keep(self, end: Epoch, clf: FEClassifier, x_dev: np.ndarray) -> None:
        """Write this epoch's model, with the prior weight that does best on dev."""
        import torch

        from paraspan.models.delta import save_delta

        clf.prior = self.prior
        tried = {}
        for weight in self.recipe.prior_weights:  # chosen on dev, like the epoch
            clf.prior_weight = weight
            tried[weight] = evaluate_split(clf, self.dev_items, x_dev)["accuracy"]
        clf.prior_weight = max(tried, key=lambda w: (tried[w], -w))
        dev_scores = evaluate_split(clf, self.dev_items, x_dev)
        self.target.mkdir(parents=True, exist_ok=True)
        save_delta(self.model.delta(), self.target / DELTA_FILE)
        device = self.device
        self.info = {
            "kind": "fine-tuned", "encoder_delta": DELTA_FILE, "train_layers": self.recipe.train_layers,
            "recipe": asdict(self.recipe), "best_epoch": end.epoch, "history": list(self.history),
            "prior_dev_accuracy": {str(k): round(v, 4) for k, v in tried.items()}, "dev": dev_scores,
            "train_spans": int(len(self.targets)), "base": self.meta.get("base", {}), "data": self.meta.get("data", {}),
            "training": {"seconds": round(time.perf_counter() - self.started, 1), "device": str(device),
                         "gpu": torch.cuda.get_device_name(device) if device.type == "cuda" else None,
                         "torch": torch.__version__, "machine": platform.machine()},
        }
        clf.info = self.info
        clf.save(self.target)
        self.log(f"epoch {end.epoch} kept, prior weight {clf.prior_weight}: dev accuracy {dev_scores['accuracy']:.4f} "
                 f"(FE spans {dev_scores['fe_accuracy']:.4f}); wrote {self.target}")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m paraspan.filter.fe_tune BUNDLE OUT [--device cuda] [--limit N] [--epochs N]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m paraspan.filter.fe_tune", description=__doc__.split("\n")[0])
    parser.add_argument("bundle")
    parser.add_argument("out")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--limit", type=int, default=None, help="train on N spans only (a smoke run)")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--train-layers", type=int, default=None)
    args = parser.parse_args(argv)
    meta = json.loads((Path(args.bundle) / BUNDLE_META).read_text(encoding="utf-8"))
    fields = _stored_recipe(meta)
    if args.epochs is not None:
        fields["epochs"] = args.epochs
    if args.train_layers is not None:
        fields["train_layers"] = args.train_layers
    train_bundle(args.bundle, args.out, device=args.device, recipe=FETuneRecipe(**fields), limit=args.limit,
                 log=print)  # a script: its log is its output
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
