"""LoRA fine-tuning of a local base model on :mod:`paraspan.train.examples` (transformers + peft).

The base is loaded by transformers (a packaged GGUF is dequantised), wrapped by peft, and trained
by a Hugging Face :class:`~transformers.Trainer`: checkpoints every ``save_steps`` (resumable, also
on another machine), dev loss at each checkpoint with early stopping, length-grouped batches.
The loss is taken on the answer tokens only, and the output layer is applied only there: a
262k-token vocabulary would otherwise cost more than the rest of a small model.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from paraspan.errors import TrainError
from paraspan.models.adapters import file_sha256
from paraspan.train.examples import Example

__all__ = ["BaseModelInfo", "GGUFTokenizer", "TrainConfig", "TrainReport", "encode", "last_checkpoint", "load_base",
           "train_lora"]

#: Every projection of a decoder block (attention and MLP), as the issue's measurements used.
TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
#: The fewest training examples a run accepts: below this, a LoRA learns the examples, not the task.
MIN_EXAMPLES = 32


class TrainConfig(BaseModel):
    """Settings of one training run (validated; the CLI's options map onto these fields)."""

    model_config = ConfigDict(extra="forbid")

    base: str = "default"
    epochs: float = Field(1.0, gt=0)
    rank: int = Field(16, ge=1, le=256)
    alpha: int | None = Field(None, ge=1)  # default 2 × rank
    dropout: float = Field(0.05, ge=0, lt=1)
    learning_rate: float = Field(2e-4, gt=0)
    batch_size: int = Field(8, ge=1)
    grad_accum: int = Field(1, ge=1)
    max_length: int = Field(160, ge=16)
    max_examples: int | None = Field(None, ge=1)
    dev_examples: int = Field(128, ge=0)
    save_steps: int = Field(50, ge=1)
    patience: int = Field(3, ge=1)
    device: str = "auto"
    seed: int = 0


@dataclass(frozen=True)
class BaseModelInfo:
    """The base a run trains: its name, file, sha256 (adapters are tied to it) and architecture."""

    name: str
    path: str
    sha256: str | None
    architecture: str


@dataclass
class TrainReport:
    """What a finished (or stopped) run did."""

    steps: int
    epochs: float
    train_examples: int
    dev_examples: int
    train_tokens: int
    seconds: float
    tokens_per_second: float
    dev_loss: float | None
    best_checkpoint: str | None
    stopped_early: bool


def load_base(base: str, device: str = "auto") -> tuple[Any, Any, BaseModelInfo]:
    """The base model in float32 (bfloat16 on a GPU), its tokenizer, and what identifies it."""
    import torch

    from paraspan.llm.hf_backend import locate_model, resolve_device

    where = resolve_device(device)
    source = locate_model(base)
    kwargs: dict[str, Any] = {"local_files_only": True}
    if source.gguf_file:
        kwargs["gguf_file"] = source.gguf_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    dtype = torch.float32 if where == "cpu" else torch.bfloat16
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(source.folder), **kwargs)
        model = AutoModelForCausalLM.from_pretrained(str(source.folder), dtype=dtype, **kwargs)
    except Exception as exc:  # an unsupported architecture or quantisation: say which file
        raise TrainError.from_code("E503", base=base, exc=f"{type(exc).__name__}: {exc}") from None
    model.to(where)
    path = source.folder / source.gguf_file if source.gguf_file else source.folder
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    if source.gguf_file:
        tokenizer = GGUFTokenizer.wrap(path, tokenizer)
    sha = file_sha256(path) if path.is_file() else None
    arch = str(getattr(model.config, "model_type", "unknown"))
    return model, tokenizer, BaseModelInfo(source.name, str(path), sha, arch)


class GGUFTokenizer:
    """The GGUF file's own tokenizer (llama.cpp's), with the special ids of the transformers one.

    Training must see the tokens generation will see, and generation tokenizes with llama.cpp:
    transformers' conversion of some GGUF vocabularies splits words into other pieces (Gemma 3:
    47 tokens where llama.cpp has 26 for the same prompt).
    """

    def __init__(self, llama: Any, hf: Any) -> None:
        self._llama = llama
        self.bos_token_id = hf.bos_token_id
        self.eos_token_id = hf.eos_token_id
        self.pad_token_id = hf.pad_token_id if hf.pad_token_id is not None else hf.eos_token_id
        self.add_bos_token = bool(getattr(hf, "add_bos_token", False))

    @classmethod
    def wrap(cls, path: Path, hf: Any) -> Any:
        """The GGUF tokenizer of ``path``, or ``hf`` itself where llama.cpp is not installed."""
        try:
            import llama_cpp
        except ImportError:
            return hf
        llama = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
        import atexit
        import weakref

        from paraspan.models.llm import _close_at_exit

        atexit.register(_close_at_exit, weakref.ref(llama))
        return cls(llama, hf)

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        ids = list(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))
        return ([self.bos_token_id] if add_special_tokens and self.add_bos_token else []) + ids


def encode(examples: Sequence[Example], tokenizer: Any, max_length: int) -> list[dict[str, list[int]]]:
    """Token ids with labels on the answer (and the end-of-text token) only; over-long examples dropped."""
    eos = tokenizer.eos_token_id
    adds_bos = getattr(tokenizer, "add_bos_token", False) and tokenizer.bos_token_id is not None
    bos = [tokenizer.bos_token_id] if adds_bos else []
    out = []
    for example in examples:
        prompt = bos + tokenizer.encode(example.prompt, add_special_tokens=False)
        answer = tokenizer.encode(example.answer, add_special_tokens=False) + [eos]
        if len(prompt) + len(answer) > max_length:
            continue
        out.append({"input_ids": prompt + answer, "labels": [-100] * len(prompt) + answer})
    return out


class _Rows:
    """A list of encoded rows as a torch-style dataset (Trainer only needs ``len`` and indexing)."""

    def __init__(self, rows: list[dict[str, list[int]]]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int) -> dict[str, list[int]]:
        return self.rows[i]


def _collate(pad_id: int) -> Callable[[list[dict[str, list[int]]]], dict[str, Any]]:
    import torch

    def collate(rows: list[dict[str, list[int]]]) -> dict[str, Any]:
        width = max(len(r["input_ids"]) for r in rows)
        ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
        labels = torch.full((len(rows), width), -100, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):
            n = len(r["input_ids"])
            ids[i, :n] = torch.tensor(r["input_ids"])
            labels[i, :n] = torch.tensor(r["labels"])
            mask[i, :n] = 1
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}

    return collate


def answer_loss(model: Any, inputs: dict[str, Any], num_items: Any = None) -> Any:
    """Cross-entropy of the answer tokens, with the output layer applied at those positions only."""
    import torch.nn.functional as F

    causal = model.get_base_model() if hasattr(model, "get_base_model") else model
    hidden = causal.model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).last_hidden_state
    target = inputs["labels"][:, 1:]
    keep = target != -100
    logits = causal.lm_head(hidden[:, :-1][keep]).float()
    cap = getattr(causal.config, "final_logit_softcapping", None)
    if cap:
        import torch

        logits = torch.tanh(logits / cap) * cap
    if num_items is not None:
        return F.cross_entropy(logits, target[keep], reduction="sum") / num_items
    return F.cross_entropy(logits, target[keep])


def _seeded_lora(model: Any, lora: Any, seed: int) -> Any:
    """``model`` wrapped by peft, its LoRA weights drawn with ``seed`` (the Trainer seeds only after they exist)
    in a forked random state, so that the same run gives the same adapter and the process's state is left as it was."""
    import torch
    from peft import get_peft_model

    gpus = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    with torch.random.fork_rng(devices=gpus):  # manual_seed seeds every device: each one's state is restored
        torch.manual_seed(seed)
        return get_peft_model(model, lora)


def train_lora(model: Any, tokenizer: Any, train: Sequence[Example], dev: Sequence[Example], output: Path,
               config: TrainConfig, *, resume: bool = False,
               on_log: Callable[[dict[str, float]], None] | None = None) -> tuple[Any, TrainReport]:
    """Train a LoRA on ``train`` with checkpoints under ``output/checkpoints``; the best model (lowest
    dev loss) is returned, wrapped by peft, with the run's report."""
    from peft import LoraConfig
    from transformers import EarlyStoppingCallback

    rows = encode(train, tokenizer, config.max_length)
    dev_rows = encode(dev, tokenizer, config.max_length)
    if len(rows) < MIN_EXAMPLES:
        raise TrainError.from_code("E504", count=len(rows), minimum=MIN_EXAMPLES, max_length=config.max_length)
    lora = LoraConfig(r=config.rank, lora_alpha=config.alpha or 2 * config.rank, lora_dropout=config.dropout,
                      target_modules=list(TARGET_MODULES), task_type="CAUSAL_LM", bias="none")
    peft_model = _seeded_lora(model, lora, config.seed)
    checkpoints = output / "checkpoints"
    has_dev = bool(dev_rows)
    args = _training_arguments(config, checkpoints, has_dev, use_cpu=str(next(model.parameters()).device) == "cpu")
    tokens = sum(len(r["input_ids"]) for r in rows)
    per_epoch_steps = max(1, math.ceil(len(rows) / (config.batch_size * config.grad_accum)))
    tokens_per_step = tokens / per_epoch_steps
    throughput = _throughput(tokens_per_step, on_log)
    callbacks: list[Any] = [throughput]
    if has_dev:
        callbacks.append(EarlyStoppingCallback(early_stopping_patience=config.patience))
    trainer = _answer_loss_trainer(model=peft_model, args=args, train_dataset=_Rows(rows),
                                   eval_dataset=_Rows(dev_rows) if has_dev else None,
                                   data_collator=_collate(tokenizer.pad_token_id), callbacks=callbacks)
    last = last_checkpoint(checkpoints) if resume else None
    if resume and last is None:
        raise TrainError.from_code("E505", folder=checkpoints)
    started = time.monotonic()
    try:
        result = trainer.train(resume_from_checkpoint=str(last) if last else None)
    except OSError as exc:  # a full disk or a vanished folder while a checkpoint is written
        intact = last_checkpoint(checkpoints)
        raise TrainError.from_code("E506", exc=f"{type(exc).__name__}: {exc}",
                                   checkpoint=intact or "none yet") from None
    seconds = time.monotonic() - started
    state = trainer.state
    dev_losses = [e["eval_loss"] for e in state.log_history if "eval_loss" in e]
    steps_run = state.global_step - (throughput.first_step[0] if throughput.first_step else 0)
    trained_tokens = tokens_per_step * steps_run
    report = TrainReport(
        steps=state.global_step, epochs=round(state.epoch or 0.0, 3), train_examples=len(rows),
        dev_examples=len(dev_rows), train_tokens=tokens, seconds=round(seconds, 1),
        tokens_per_second=round(trained_tokens / seconds, 2) if seconds > 0 else 0.0,
        dev_loss=min(dev_losses) if dev_losses else None,
        best_checkpoint=Path(state.best_model_checkpoint).name if state.best_model_checkpoint else None,
        stopped_early=state.global_step < state.max_steps,
    )
    del result
    return trainer.model, report


def _training_arguments(config: TrainConfig, checkpoints: Path, has_dev: bool, *, use_cpu: bool) -> Any:
    """The Trainer's settings: checkpoints every ``save_steps``, dev loss there (with the best model loaded
    at the end) when there is a dev set, length-grouped batches."""
    from transformers import TrainingArguments

    return TrainingArguments(
        output_dir=str(checkpoints),
        num_train_epochs=config.epochs,
        per_device_train_batch_size=config.batch_size,
        per_device_eval_batch_size=config.batch_size,
        gradient_accumulation_steps=config.grad_accum,
        learning_rate=config.learning_rate,
        lr_scheduler_type="linear",
        warmup_ratio=0.03,
        weight_decay=0.01,
        logging_steps=max(1, min(10, config.save_steps)),
        save_strategy="steps",
        save_steps=config.save_steps,
        save_total_limit=3,
        eval_strategy="steps" if has_dev else "no",
        eval_steps=config.save_steps,
        load_best_model_at_end=has_dev,
        metric_for_best_model="eval_loss",
        greater_is_better=False,
        group_by_length=True,
        label_names=["labels"],
        prediction_loss_only=True,
        remove_unused_columns=False,
        report_to=[],
        seed=config.seed,
        use_cpu=use_cpu,
        dataloader_num_workers=0,
        disable_tqdm=False,
    )


def _answer_loss_trainer(**kwargs: Any) -> Any:
    """A Trainer whose loss is :func:`answer_loss` (built here: transformers is imported only when training)."""
    from transformers import Trainer

    class _AnswerLossTrainer(Trainer):
        def compute_loss(self, model: Any, inputs: dict[str, Any], return_outputs: bool = False,
                         num_items_in_batch: Any = None) -> Any:
            loss = answer_loss(model, inputs, num_items_in_batch)
            return (loss, (loss,)) if return_outputs else loss

    return _AnswerLossTrainer(**kwargs)


def _throughput(tokens_per_step: float, on_log: Callable[[dict[str, float]], None] | None) -> Any:
    """A callback that adds training tokens/s and the ETA to each log line and hands it to ``on_log``."""
    from transformers import TrainerCallback

    class _Throughput(TrainerCallback):
        """Remembers the step this process began at (a resumed run begins at its checkpoint's)."""

        first_step: tuple[int, float] | None = None

        def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if self.first_step is None:
                self.first_step = (state.global_step, time.monotonic())

        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, float] | None = None,
                   **kwargs: Any) -> None:
            if logs is None or self.first_step is None:
                return
            step0, t0 = self.first_step
            done = state.global_step - step0
            elapsed = time.monotonic() - t0
            if done > 0 and elapsed > 0:
                logs["tokens_per_s"] = round(tokens_per_step * done / elapsed, 1)
                logs["eta_min"] = round((state.max_steps - state.global_step) * elapsed / done / 60, 1)
            if on_log is not None:
                on_log(dict(logs))

    return _Throughput()


def last_checkpoint(folder: Path) -> Path | None:
    """The newest complete ``checkpoint-N`` folder (its trainer state is written last)."""
    if not folder.is_dir():
        return None
    found = []
    for child in folder.iterdir():
        if child.is_dir() and child.name.startswith("checkpoint-") and child.name[11:].isdigit():
            if (child / "trainer_state.json").is_file():
                found.append((int(child.name[11:]), child))
    return max(found)[1] if found else None
