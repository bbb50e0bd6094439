"""A run's config and worker plan from the options of ``paraspan.augment`` and ``paraspan augment``.

:func:`run_config` layers defaults < a config file < the given options < ``--set`` overrides;
:func:`worker_plan` resolves ``workers``/``threads`` for this machine. Shared by :mod:`paraspan.api`
and the commands that plan workers (``paraphrase``, ``infill``); nothing is imported until called.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paraspan.errors import ParaspanError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from paraspan.pipeline import AugmentConfig


def run_config(*, config_file: Path | None = None, overrides: Sequence[str] | None = None,
               generator: str | None = None, aligner: str | None = None, settings: dict[str, Any] | None = None,
               generator_options: dict[str, Any] | None = None, soft_options: dict[str, Any] | None = None,
               filters: tuple[Any, ...] = (), output_filter: Any = None) -> AugmentConfig:
    """The run's config: defaults < ``config_file`` < the given options < ``overrides`` (``--set``).

    ``settings`` are run-level options the user gave; ``generator_options`` generator options they
    gave (``model``, ``samples`` …: an error if the generator has no such option);
    ``soft_options`` generator settings used only where the generator has the option and
    nothing else set it (the demo's). ``output_filter``: what the outputs must pass, recorded too
    when no filter of the config has its name.
    """
    from paraspan.pipeline import AugmentConfig, apply_overrides, check
    from paraspan.pipeline.components import generator_options as options_of

    data: dict[str, Any] = {}
    if config_file is not None:
        try:
            data = json.loads(Path(config_file).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ParaspanError.from_code("E753", file=str(config_file), problem=f"cannot read the run config: {exc}",
                                          fix="pass a JSON object (see `paraspan augment --help`), e.g. the `config`"
                                          " of a summary file") from None
        if not isinstance(data, dict):
            raise ParaspanError.from_code("E753", file=str(config_file), problem="the run config is not a JSON object",
                                          fix='write {"iterations": 3, "generator": {"name": "paraphrase"}, ...}')
    data.update({k: v for k, v in (settings or {}).items() if v is not None})
    for which, name in (("generator", generator), ("aligner", aligner)):
        block = data.get(which)
        block = dict(block) if isinstance(block, dict) else ({"name": block} if isinstance(block, str) else {})
        if name is not None and block.get("name") != name:
            block = {"name": name}  # another component: the file's options were for the old one
        block.setdefault("name", AugmentConfig.model_fields[which].default.name)
        data[which] = block
    data["generator"].update({k: v for k, v in (generator_options or {}).items() if v is not None})
    merged: list[Any] = []  # each spec once, in order (a dict spec is unhashable: compare, not hash)
    for spec in [*(data.get("filters") or []), *filters]:
        if spec not in merged:
            merged.append(spec)
    data["filters"] = merged
    data = apply_overrides(data, list(overrides or []))
    if output_filter == "verified":
        directional_check(data)
    if output_filter not in (None, "all"):
        from paraspan.filter import RECORDED, build_filters

        if isinstance(output_filter, dict) or output_filter not in {
                f.name for f in build_filters([*RECORDED, *(data.get("filters") or [])])}:
            if output_filter not in (data.get("filters") or []):
                data["filters"] = [*(data.get("filters") or []), output_filter]
    if soft_options:
        block = data["generator"] if isinstance(data["generator"], dict) else {"name": data["generator"]}
        known = options_of(block["name"])
        data["generator"] = {**{k: v for k, v in soft_options.items() if k in known}, **block}
    return check(AugmentConfig.from_dict(data, where=str(config_file) if config_file else "the run config"))


def directional_check(data: dict[str, Any]) -> None:
    """With a directional generator (one whose factory says its outputs are forward or reverse:
    ``generalize``, ``elaborate``, ``paraphrase`` with ``relation``), the default ``verified`` check asks for
    that direction: the NLI judges for the forward (reverse) entailment class (by the ``llm`` judge), the
    content check for words dropped (added) only outside the labelled spans. A ``verified`` filter with
    options of the user's own is left as it is; ``data`` changes in place."""
    from paraspan.pipeline.components import generator_relation

    relation = generator_relation(data.get("generator"))
    if relation not in ("forward", "reverse"):  # equivalence, or a bad value the generator's check reports
        return
    filters = list(data.get("filters") or [])
    if any(isinstance(f, dict) and f.get("name") == "verified" for f in filters):
        return
    # recorded under the same name, so -o, --choose-by and export find it as "verified"; judged by the
    # LLM: minilm-nli calls most dropped or added details equivalence (it agreed with the hand judgment
    # on 10% of the judged reverse insertions and 32-34% of the forward outputs, benchmarks/HISTORY.md)
    data["filters"] = [f for f in filters if f != "verified"] + [{"name": "verified", "relation": relation,
                                                                  "judges": ["llm"]}]


def count_lines(path: Path, limit: int | None = None) -> int | None:
    """Lines of ``path`` (at most ``limit``): no more workers than inputs. None when unreadable."""
    count, last = 0, b"\n"
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                count += chunk.count(b"\n")
                last = chunk[-1:]
                if limit is not None and count >= limit:
                    return limit
    except OSError:
        return None
    count += last != b"\n"
    return count if limit is None else min(count, limit)


def uses_gpu(model: str | None, device: str | None, llm_backend: str = "auto") -> bool:
    """Whether the LLM will run on a GPU (``device="cuda"``, or ``auto`` with transformers and a GPU)."""
    wanted = (device or "auto").strip().lower()
    if wanted != "auto":
        return wanted.startswith("cuda")
    from paraspan.llm.hf_backend import pick_backend

    try:
        if pick_backend(model or "default", llm_backend, wanted) != "transformers":
            return False
    except ParaspanError:
        return False  # reported when the model loads
    import torch

    return bool(torch.cuda.is_available())


def worker_plan(workers: str | int, threads: str | int, *, backend: str = "local", ray_address: str | None = None,
                model: str | None = None, tasks: int | None = None, base_memory: int | None = None,
                gpu: bool = False, warn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """``workers`` and ``threads`` resolved (:func:`paraspan.pipeline.resources.plan_workers`), as
    the summary records them: workers, threads per worker, and why (``reason``)."""
    from paraspan.pipeline.resources import AUTO, WORKER_MEMORY, parse_amount, plan_workers, worker_memory

    want_workers, want_threads = parse_amount(workers, "--workers"), parse_amount(threads, "--threads")
    if backend == "ray" and ray_address:  # the actors run on the cluster: this machine's resources do not count
        if want_workers == AUTO:
            raise ParaspanError.from_code("E876", address=ray_address)
        n_threads = 1 if want_threads == AUTO else want_threads
        return {"workers": want_workers, "threads": n_threads, "requested_workers": want_workers,
                "requested_threads": want_threads,
                "reason": f"{want_workers} Ray actors × {n_threads} thread{'s' * (n_threads != 1)} at {ray_address}"}
    memory = worker_memory(model or "default", base=base_memory or WORKER_MEMORY)
    return plan_workers(want_workers, want_threads, per_worker_memory=memory, tasks=tasks, warn=warn,
                        gpu=gpu).to_dict()
