"""Bad inputs through every reader, every writer and the main commands (a fixed corpus, made here).

For every run: no traceback, the input unchanged, and for every write that exits 0 without a
warning, the counts it reports equal what reads back. ``python tests/test_fuzz.py`` prints the
counts (runs, tracebacks, data-loss cases) as JSON, so that another checkout can be measured with
the same script (``cd OTHER && python /path/to/test_fuzz.py``).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tarfile
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytestmark = pytest.mark.filterwarnings("ignore")  # the runs' own warnings are part of what they print

FIXTURES = Path("tests/corpus/fixtures")
READERS = ("jsonl", "framenet", "opensesame", "conllu-srl", "conll2009", "bio", "docbin")
WRITERS = {"jsonl": "jsonl", "bio": "bio", "opensesame": "conll", "docbin": "spacy"}
#: Inputs a reader must refuse: reading them without an error loses data silently (a cut archive read
#: in part, an undefined entity that cuts a sentence, text that cannot be written back).
MUST_FAIL = frozenset({"fndata-0.1-cut.tar", "fndata-0.1-cut.tar.gz", "fn_entity", "fn_entity_dtd", "cut.jsonl.gz",
                       "surrogate_text.jsonl", "surrogate_meta.jsonl", "surrogate_id.jsonl"})
FAKE_ARGS = ["--filter", "all", "--generator", "tests.pipeline.fakes:make_generator", "--aligner",
             "tests.pipeline.fakes:make_aligner", "--no-progress", "--workers", "1"]


def _sentence(sid: str, text: str, *spans: tuple[str, str, int, int], **extra: object) -> dict:
    structures = [{"kind": kind, "label": label, "anchor": {"start": s, "end": e, "label": None}, "args": []}
                  for kind, label, s, e in spans]
    return {"id": sid, "text": text, "structures": structures, "meta": {}, **extra}


GOOD = [
    _sentence("a", "The farmer sold his tractor.", ("frame", "Commerce_sell", 11, 15)),
    _sentence("b", "Anna lives in Oslo.", ("entity", "PER", 0, 4), ("entity", "LOC", 14, 18)),
    _sentence("c", "Prices rose sharply.", ("srl", "rise.01", 7, 11)),
    _sentence("d", "No structure here."),
    _sentence("e", "हिंदी में लिखा गया है।", ("entity", "LANG", 0, 5)),
    _sentence("f", "Cafe\u0301 au lait was sold.", ("entity", "ORG", 0, 5), ("frame", "Commerce_sell", 18, 22)),
]


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def _tar(path: Path, release: Path, *, mode: str = "w") -> Path:
    with tarfile.open(path, mode) as tar:
        tar.add(release, arcname=release.name)
    return path


def build_inputs(root: Path) -> list[tuple[str, Path, str]]:
    """``(name, path, format)`` of every bad (and a few good) inputs, written under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    cases: list[tuple[str, Path, str]] = []

    def text(name: str, content: str | bytes, fmt: str) -> None:
        path = root / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
        cases.append((name, path, fmt))

    good = _jsonl(GOOD)
    text("good.jsonl", good, "jsonl")
    text("empty.jsonl", "", "jsonl")
    text("malformed.jsonl", good + "{oops\n", "jsonl")
    text("huge_int.jsonl", good + '{"id": "z", "text": "x", "structures": [{"kind": "entity", "label": "L", '
         '"anchor": {"start": ' + "9" * 5000 + ', "end": 1}}]}\n', "jsonl")
    text("deep.jsonl", "[" * 100_000 + "]" * 100_000 + "\n", "jsonl")
    text("surrogate_text.jsonl", good + '{"id": "s", "text": "bad \\ud800 text", "structures": []}\n', "jsonl")
    text("surrogate_meta.jsonl", '{"id": "s", "text": "ok", "meta": {"k": "\\udfff"}}\n', "jsonl")
    text("surrogate_id.jsonl", '{"id": "\\ud800", "text": "ok"}\n', "jsonl")
    text("pair_ok.jsonl", '{"id": "p", "text": "smile \\ud83d\\ude00 ok"}\n', "jsonl")
    text("nan.jsonl", '{"id": "n", "text": "abc", "structures": [{"kind": "entity", "label": "L", '
         '"anchor": {"start": NaN, "end": Infinity}}]}\n', "jsonl")
    text("negative.jsonl", '{"id": "n", "text": "abc", "structures": [{"kind": "entity", "label": "L", '
         '"anchor": {"start": -1, "end": 2}}]}\n', "jsonl")
    text("beyond.jsonl", '{"id": "n", "text": "abc", "structures": [{"kind": "entity", "label": "L", '
         '"anchor": {"start": 0, "end": 99}}]}\n', "jsonl")
    text("dup_ids.jsonl", good + json.dumps(GOOD[0]) + "\n", "jsonl")
    text("bom_crlf.jsonl", "\ufeff" + good.replace("\n", "\r\n"), "jsonl")
    text("not_objects.jsonl", "[1, 2]\n42\n\"x\"\nnull\n", "jsonl")
    text("unknown_kind.jsonl", '{"id": "u", "text": "abc", "structures": [{"kind": "nope", "label": "L"}]}\n',
         "jsonl")
    text("tabs_newlines.jsonl", _jsonl([_sentence("t", "a\tb\nc d", ("entity", "X", 0, 3))]), "jsonl")
    text("null_bytes.jsonl", good + '{"id": "z", "text": "a\\u0000b"}\n', "jsonl")
    text("long_token.jsonl", _jsonl([_sentence("l", "x" * 2_000_000, ("entity", "X", 0, 5))]), "jsonl")
    text("bad_utf8_deep.jsonl", _jsonl([{**GOOD[i % 6], "id": f"s{i}"} for i in range(240)]).encode("utf-8")
         + b'{"id": "q", "text": "caf\xe9"}\n', "jsonl")
    text("binary.jsonl", bytes(range(256)) * 8, "jsonl")
    path = root / "good.jsonl.gz"
    path.write_bytes(gzip.compress(good.encode("utf-8")))
    cases.append(("good.jsonl.gz", path, "jsonl"))
    path = root / "cut.jsonl.gz"
    path.write_bytes(gzip.compress((good * 50).encode("utf-8"))[:300])
    cases.append(("cut.jsonl.gz", path, "jsonl"))
    (root / "a_folder.jsonl").mkdir(exist_ok=True)
    cases.append(("a_folder.jsonl", root / "a_folder.jsonl", "jsonl"))
    cases.append(("missing.jsonl", root / "missing.jsonl", "jsonl"))

    for name in ("conll03_like.iob", "wikiann_like.bio", "small_opensesame.conll", "srl_small.conllu",
                 "small.conll2009"):
        shutil.copy(FIXTURES / name, root / name)
    cases += [("conll03_like.iob", root / "conll03_like.iob", "bio"),
              ("small_opensesame.conll", root / "small_opensesame.conll", "opensesame"),
              ("srl_small.conllu", root / "srl_small.conllu", "conllu-srl"),
              ("small.conll2009", root / "small.conll2009", "conll2009")]
    text("one_column.bio", "Anna\nlives\tO\n", "bio")
    text("bad_tag.bio", "Anna\tX-PER\n", "bio")
    text("long_token.bio", "x" * 2_000_000 + "\n", "bio")
    text("iobes_open.bio", "Anna\tB-PER\nlives\tO\n", "bio")
    text("hindi.bio", "हिंदी\tB-LANG\nमें\tO\n", "bio")
    text("huge_index.conll", "9" * 5000 + "\tword\tsell.v\tCommerce_sell\tO\n", "opensesame")
    text("no_target.conll", "1\tword\t_\t_\tO\n", "opensesame")
    text("wrong_cols.conll", "1\tword\tO\n", "opensesame")
    text("demo_named.conll", (FIXTURES / "small_opensesame.conll").read_text(encoding="utf-8"), "opensesame")
    text("bad_head.conllu", "# text = a b\n1\ta\ta\tX\tX\t_\t9\tdep\t_\t_\n2\tb\tb\tX\tX\t_\t0\troot\t_\t_\n",
         "conllu-srl")
    text("junk.spacy", b"\x00\x01not a docbin" * 10, "docbin")

    release = FIXTURES / "framenet" / "fndata-0.1"
    shutil.copytree(release, root / "fn_good" / "fndata-0.1", dirs_exist_ok=True)
    cases.append(("fn_good", root / "fn_good" / "fndata-0.1", "framenet"))
    full = _tar(root / "fndata-0.1.tar", release)
    data = full.read_bytes()
    with tarfile.open(full) as tar:
        members = tar.getmembers()
    # a member boundary after the first full-text document: what came before is whole, the rest is missing
    first = next(i for i, m in enumerate(members) if "/fulltext/" in m.name and m.name.endswith(".xml"))
    cut_at = members[first + 1].offset
    text("fndata-0.1-cut.tar", data[:cut_at], "framenet")
    text("fndata-0.1-cut.tar.gz", gzip.compress(data)[:2000], "framenet")
    dtd = '<!DOCTYPE fullTextAnnotation SYSTEM "fulltext.dtd">\n'
    for name, change in (("fn_entity", lambda t: t.replace("<text>", "<text>The &e; ", 1)),
                         ("fn_entity_dtd", lambda t: t.replace("<fullTextAnnotation", dtd + "<fullTextAnnotation", 1)
                          .replace("<text>", "<text>The &e; ", 1).replace(' standalone="yes"', "")),
                         ("fn_malformed", lambda t: t.replace("</sentence>", "", 1)),
                         ("fn_huge_offset", lambda t: re.sub(r'start="\d+"', 'start="' + "9" * 5000 + '"', t,
                                                             count=1))):
        target = root / name / "fndata-0.1"
        shutil.copytree(release, target, dirs_exist_ok=True)
        doc = sorted((target / "fulltext").glob("*.xml"))[0]
        doc.write_text(change(doc.read_text(encoding="utf-8")), encoding="utf-8")
        cases.append((name, target, "framenet"))
    target = root / "fn_unreadable" / "fndata-0.1"
    shutil.copytree(release, target, dirs_exist_ok=True)
    (target / "fulltext" / "zz_unreadable.xml").mkdir()  # a folder where a file is expected: read fails
    cases.append(("fn_unreadable", target, "framenet"))
    return cases


@dataclass
class Report:
    runs: int = 0
    inputs: int = 0
    commands: int = 0
    tracebacks: list[str] = field(default_factory=list)
    data_loss: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"inputs": self.inputs, "commands": self.commands, "runs": self.runs,
                "tracebacks": len(self.tracebacks), "data_loss": len(self.data_loss)}


def _digest(path: Path) -> str:
    if path.is_dir():
        return hashlib.sha256("".join(f"{p}:{_digest(p)}" for p in sorted(path.rglob("*"))
                                      if p.is_file()).encode()).hexdigest()
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "absent"
    except OSError:
        return "unreadable"


def run_cli(argv: list[str]) -> tuple[int | None, str, str]:
    """``paraspan ARGV`` in this process: (exit code, or None for a traceback; stderr; traceback text)."""
    from paraspan.cli.main import main

    err, out = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - what the fuzz counts
            return None, err.getvalue(), traceback.format_exc(limit=-3)
    return rc, err.getvalue(), ""


def _reads_back(path: Path, fmt: str) -> tuple[int, int] | None:
    from paraspan.corpus.formats import read_corpus

    try:
        sentences = list(read_corpus(path, fmt))
    except Exception:  # noqa: BLE001
        return None
    return len(sentences), sum(len(s.structures) for s in sentences)


def _split_clusters(path: Path, column: int) -> bool:
    import unicodedata

    for line in path.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) > column and cells[column] and unicodedata.category(cells[column][0]).startswith("M"):
            return True
    return False


_WROTE = re.compile(r"wrote (\d+) sentences \((\d+) structures")


def run_fuzz(root: Path, log: Callable[[str], None] | None = None) -> Report:
    report = Report()
    cases = build_inputs(root / "in")
    report.inputs = len(cases)
    outdir = root / "out"
    outdir.mkdir(parents=True, exist_ok=True)
    commands: set[str] = set()

    def one(label: str, argv: list[str], watched: list[Path], check: Callable[[int, str], str | None] | None = None,
            ) -> tuple[int | None, str]:
        before = {p: _digest(p) for p in watched}
        rc, err, trace = run_cli(argv)
        report.runs += 1
        commands.add(label.split(" ")[0])
        if rc is None:
            report.tracebacks.append(f"{label}: {trace.strip().splitlines()[-1][:200]}")
        changed = [str(p.name) for p in watched if _digest(p) != before[p]]
        if changed:
            report.data_loss.append(f"{label}: changed {', '.join(changed)}")
        elif rc == 0 and check is not None:
            why = check(rc, err)
            if why:
                report.data_loss.append(f"{label}: {why}")
        if log is not None:
            log(f"{label}: rc={rc} {' '.join(err.split())[-300:]}")
        return rc, err

    for name, path, fmt in cases:
        silent = (lambda rc, err, name=name: f"{name} read without an error") if name in MUST_FAIL else None
        for reader in READERS:
            one(f"stats --from {reader} {name}", ["stats", str(path), "--from", reader, "--json"], [path],
                silent if reader == fmt else None)
        one(f"stats {name}", ["stats", str(path)], [path])
        one(f"validate {name}", ["validate", str(path)], [path], silent if fmt == "jsonl" else None)
        for writer, suffix in WRITERS.items():
            out = outdir / f"{name}.{writer}.{suffix}"
            if out.exists():
                out.unlink()

            def compare(rc: int, err: str, out: Path = out, writer: str = writer) -> str | None:
                found = _WROTE.search(err)
                if "warning" in err or found is None:
                    return None  # a loss the run announced
                back = _reads_back(out, writer)
                reported = (int(found.group(1)), int(found.group(2)))
                if back != reported:
                    return f"reported {reported} (sentences, structures), reads back {back}"
                if writer in ("bio", "opensesame") and _split_clusters(out, 0 if writer == "bio" else 1):
                    return "a token starts with a combining mark (a grapheme cluster was split)"
                return None

            one(f"convert {name} --to {writer}", ["convert", str(path), "--from", fmt, "-o", str(out),
                                                  "--to", writer, "--no-progress"], [path], compare)
        if path.is_file():
            one(f"convert {name} -o itself", ["convert", str(path), "--from", fmt, "-o", str(path)], [path])
    _main_commands(root, one)
    _review_requests(root, report)
    report.commands = len(commands)
    return report


def _review_requests(root: Path, report: Report) -> None:
    """Hostile requests to the review app: a 5xx (or an exception) counts as a traceback, a response that
    echoes a large body back as a data-loss case (what a user sent is sent back to anyone who asks)."""
    from fastapi.testclient import TestClient

    from paraspan.review.app import create_app
    from paraspan.review.tasks import ReviewSettings
    from tests.review.conftest import prepared_store

    store = prepared_store(root / "review.db")
    client = TestClient(create_app(store, ReviewSettings(redundancy=2)), raise_server_exceptions=False)
    task = client.post("/api/next", json={"annotator": "ann"}).json()
    slots = [c["slot"] for c in task["candidates"]]
    scores = "{" + ", ".join(f'"{s}": 50' for s in slots) + "}"

    def body(annotator: str = '"ann"', task_id: object = task["task"], score: str = scores, extra: str = "") -> bytes:
        return f'{{"annotator": {annotator}, "task": {task_id}, "scores": {score}{extra}}}'.encode()

    requests = {
        "surrogate annotator": ("/api/next", b'{"annotator": "\\ud800"}'),
        "surrogate in a submission": ("/api/judgments", body(annotator='"a\\ud800"')),
        "surrogate note": ("/api/judgments", body(extra=f', "notes": {{"{slots[0]}": "\\udfff"}}')),
        "NaN score": ("/api/judgments", body(score=f'{{"{slots[0]}": NaN}}')),
        "Infinity score": ("/api/judgments", body(score=f'{{"{slots[0]}": Infinity}}')),
        "task 2**70": ("/api/judgments", body(task_id=2**70)),
        "task -2**70": ("/api/judgments", body(task_id=-(2**70))),
        "5 MB annotator": ("/api/next", b'{"annotator": "' + b"x" * 5_000_000 + b'"}'),
        "5 MB note": ("/api/judgments", body(extra=f', "notes": {{"{slots[0]}": "' + "y" * 5_000_000 + '"}}')),
        "not JSON": ("/api/next", b"{oops"),
        "deep JSON": ("/api/next", b"[" * 100_000 + b"]" * 100_000),
        "huge number": ("/api/judgments", body(score=f'{{"{slots[0]}": {"9" * 5000}}}')),
        "array body": ("/api/judgments", b"[1, 2, 3]"),
    }
    for label, (path, data) in requests.items():
        report.runs += 1
        try:
            response = client.post(path, content=data, headers={"content-type": "application/json"})
        except Exception as exc:  # noqa: BLE001 - what the fuzz counts
            report.tracebacks.append(f"review {label}: {type(exc).__name__}")
            continue
        if response.status_code >= 500:
            report.tracebacks.append(f"review {label}: HTTP {response.status_code}")
        elif len(response.content) > 100_000:
            report.data_loss.append(f"review {label}: HTTP {response.status_code} echoes {len(response.content):,} "
                                    "bytes of the request")
    evil = TestClient(create_app(store, ReviewSettings(redundancy=2), **_bound("127.0.0.1")),
                      base_url="http://evil.example", raise_server_exceptions=False)
    report.runs += 1
    if evil.post("/api/next", json={"annotator": "dns-rebinding"}).status_code < 400:
        report.data_loss.append("review: a request for Host evil.example was served (DNS rebinding)")


def _bound(host: str) -> dict[str, str]:
    """create_app's keyword for the address it serves on, where it takes one."""
    import inspect

    from paraspan.review.app import create_app

    return {"host": host} if "host" in inspect.signature(create_app).parameters else {}


def _main_commands(root: Path, one: Callable[..., tuple[int | None, str]]) -> None:
    """Usage errors, writes over inputs and stores, resumes of another corpus."""
    work = root / "main"
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "corpus.jsonl"
    corpus.write_text(_jsonl(GOOD), encoding="utf-8")
    other = work / "other.jsonl"
    other.write_text(_jsonl([{**s, "text": s["text"] + " "} for s in GOOD]), encoding="utf-8")
    for argv in (["augment", "--from", "bio", str(corpus)], ["convert", str(corpus)], ["stats", "--top", "abc",
                 str(corpus)], ["nosuchcmd"], ["augment", str(corpus), "-o", str(work / "x.jsonl"), "--iterations",
                 "0"], ["convert", str(corpus), "-o", str(work / "l.jsonl"), "--limit", "-1"],
                 ["convert", str(corpus), "-o", str(work)], ["stats", str(corpus), "--no-such-option"]):
        one(" ".join(a if not a.startswith("/") else Path(a).name for a in argv) + " (usage)", argv, [corpus])
    one("augment -o corpus", ["augment", str(corpus), "-o", str(corpus), *FAKE_ARGS], [corpus])
    store = work / "run.db"
    one("augment --store", ["augment", str(corpus), "-o", str(work / "out.jsonl"), "--store", str(store),
                               *FAKE_ARGS], [corpus])
    if store.exists():
        one("augment --resume other corpus", ["augment", str(other), "-o", str(work / "out2.jsonl"), "--store",
                                              str(store), "--resume", *FAKE_ARGS], [other],
            lambda rc, err: "--resume with another corpus exited 0: its outputs are the old corpus's")
        one("export -o store", ["export", str(store), "-o", str(store)], [store])
    one("augment --resume missing store", ["augment", str(corpus), "-o", str(work / "out3.jsonl"), "--store",
                                           str(work / "nope.db"), "--resume", *FAKE_ARGS], [corpus],
        lambda rc, err: "--resume on a missing store started a new run")
    notes = work / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    one("augment --store text file", ["augment", str(corpus), "-o", str(work / "out4.jsonl"), "--store",
                                      str(notes), *FAKE_ARGS], [corpus, notes])


def test_fuzz_no_traceback_no_loss(tmp_path, monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    report = run_fuzz(tmp_path)
    assert report.runs > 500
    assert not report.tracebacks, "\n".join(report.tracebacks)
    assert not report.data_loss, "\n".join(report.data_loss)


if __name__ == "__main__":
    import tempfile

    sys.path.insert(0, os.getcwd())
    shown = os.environ.get("FUZZ_LOG")
    with tempfile.TemporaryDirectory(prefix="paraspan-fuzz-") as tmp:
        result = run_fuzz(Path(tmp), log=(lambda line: print(line, file=sys.stderr)
                                          if shown is None or shown in line else None) if shown is not None else None)
    print(json.dumps({**result.counts(), "traceback_cases": result.tracebacks, "data_loss_cases": result.data_loss},
                     indent=1, ensure_ascii=True))
