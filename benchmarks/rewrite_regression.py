"""Whether the hand-written rewrite rules still write what they wrote: record, then compare.

``record`` runs every registered rewrite rule (no learned rules, no per-sentence limit) over the
first N sentences of each corpus and writes, per sentence, each rule's raw rewrites and its
projected outputs (rule, text, structures with their spans) to a JSONL file. Keep that file
outside the repository: it holds corpus text. ``compare`` reads two such files and writes a
results JSON of counts only (sentences, outputs before/after, identical, differing per rule),
printing the differing outputs for the reader to judge. ``measure`` counts, over the given Python
files, lines, inline word lists (set, tuple, list or dict literals of three or more lower-case words,
dependency labels aside), comment and docstring references to judged runs ("exemplars-ac",
"wikiann-cascade-j", "v21:"), vetoes (early ``continue``s and ``return False``s in rule code, or
registered ``@veto`` functions) and functions over 80 lines.

    python benchmarks/rewrite_regression.py record /tmp/rewrite-before.jsonl \\
        ../shared/data/srl/up-english-ewt/en_ewt-up-dev.conllu:conllu-srl:400 \\
        ../shared/data/framenet/fn17-opensesame/dev.conll:opensesame:400
    python benchmarks/rewrite_regression.py compare /tmp/rewrite-before.jsonl /tmp/rewrite-after.jsonl \\
        -o benchmarks/results/rewrite-regression.json
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import sys
import time
import tokenize
from collections import Counter
from itertools import islice
from pathlib import Path
from typing import Any


def _corpora(specs: list[str]):
    from paraspan.corpus.formats import read_corpus

    for spec in specs:
        path, fmt, n = (spec.split(":") + ["", ""])[:3]
        yield from islice(read_corpus(path, fmt or "jsonl"), int(n) if n else None)


def record(out: Path, specs: list[str]) -> None:
    from paraspan.generate.rewrite.generator import Rewriter
    from paraspan.generate.rewrite.rules import RuleSet, hand_rules
    from paraspan.models import load_spacy

    rewriter = Rewriter(RuleSet(hand_rules(), source="hand"), nlp=load_spacy())
    seen: set[str] = set()
    start, n = time.perf_counter(), 0
    with out.open("w", encoding="utf-8") as fh:
        for sentence in _corpora(specs):
            if sentence.text in seen:
                continue
            seen.add(sentence.text)
            doc = rewriter.nlp(sentence.text)
            raw = [[r.rule, r.text] for r in rewriter.raw_rewrites(doc)]
            projected = [[s.provenance["rules"][0], s.text,
                          [[st.kind, st.label, st.anchor and [st.anchor.start, st.anchor.end],
                            [[a.start, a.end, a.label] for a in st.args]] for st in s.structures]]
                         for s in rewriter.rewrite_sentence(sentence, doc)]
            fh.write(json.dumps({"id": sentence.id, "text": sentence.text, "raw": raw, "projected": projected}) + "\n")
            n += 1
    errors = {k: v for k, v in rewriter.counts.items() if k.startswith("rule_error")}
    print(f"{n} sentences in {time.perf_counter() - start:.0f}s; rule errors: {errors or 0}", file=sys.stderr)


def _load(path: Path) -> dict[str, dict[str, Any]]:
    return {r["text"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def compare(before: Path, after: Path, out: Path | None) -> int:
    a, b = _load(before), _load(after)
    common = sorted(set(a) & set(b))
    result: dict[str, Any] = {"sentences": len(common), "sentences_only_before": len(set(a) - set(b)),
                              "sentences_only_after": len(set(b) - set(a))}
    differing: Counter[str] = Counter()
    for key in ("raw", "projected"):
        before_n = sum(len(a[t][key]) for t in common)
        after_n = sum(len(b[t][key]) for t in common)
        identical = sum(1 for t in common if a[t][key] == b[t][key])
        result[key] = {"outputs_before": before_n, "outputs_after": after_n,
                       "sentences_identical": identical, "sentences_differing": len(common) - identical}
        for t in common:
            if a[t][key] != b[t][key]:
                gone = [o for o in a[t][key] if o not in b[t][key]]
                new = [o for o in b[t][key] if o not in a[t][key]]
                for o in gone:
                    differing[f"{key}:{o[0]}:lost"] += 1
                    print(f"[{key}] {a[t]['id']} LOST {o[0]}: {o[1]}")
                for o in new:
                    differing[f"{key}:{o[0]}:new"] += 1
                    print(f"[{key}] {b[t]['id']} NEW  {o[0]}: {o[1]}")
                if not gone and not new:
                    differing[f"{key}:order"] += 1
                    print(f"[{key}] {a[t]['id']} ORDER")
    result["differences"] = dict(sorted(differing.items()))
    result["rules"] = dict(sorted(Counter(o[0] for t in common for o in b[t]["raw"]).items()))
    text = json.dumps(result, indent=2)
    print(text)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    return 0 if not differing and result["sentences_only_before"] == result["sentences_only_after"] == 0 else 1


#: dependency labels and other lower-case parser vocabulary, which a word list is not
_PARSER_WORDS = frozenset(
    "acl acomp advcl advmod agent amod appos attr aux auxpass case cc ccomp compound conj csubj csubjpass dative "
    "dep det dobj expl intj mark meta neg nmod npadvmod nsubj nsubjpass nummod oprd parataxis pcomp pobj poss "
    "preconj predet prep prt punct quantmod relcl xcomp root flat".split())
_RUN_REFERENCE = re.compile(
    r"fn-cascade|fn-ds-s\d|exemplars-[a-z]|wikiann-(?:ds-)?cascade|ewt-(?:ds-)?cascade|relations-[a-z]|"
    r"\btrain-[a-z]\b|-seed\d|\bv\d+(?:-v\d+)?:|\(v\d+\)")


def _word_list(node: ast.AST) -> bool:
    if isinstance(node, ast.Dict):
        elts = [k for k in node.keys if k is not None]
    elif isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        elts = node.elts
    else:
        return False
    strings = [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    lexical = [w for w in strings if w.replace("'", "").replace("-", "").isalpha() and w == w.lower()
               and w not in _PARSER_WORDS]
    return len(strings) == len(elts) and len(lexical) >= 3


def measure(paths: list[Path], out: Path | None) -> int:
    result: dict[str, Any] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        comments = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
                    if t.type == tokenize.COMMENT]
        docs = [ast.get_docstring(n) or "" for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef))]
        funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        early = sum(1 for n in ast.walk(tree) if isinstance(n, ast.Continue)) + sum(
            1 for n in ast.walk(tree) if isinstance(n, ast.Return) and isinstance(n.value, ast.Constant)
            and n.value.value is False)
        vetoes = sum(1 for f in funcs for d in f.decorator_list
                     if isinstance(d, ast.Call) and getattr(d.func, "id", "") == "veto")
        result[path.name] = {
            "lines": len(text.splitlines()),
            "inline_word_lists": sum(1 for n in ast.walk(tree) if _word_list(n)),
            "run_references": sum(len(_RUN_REFERENCE.findall(c)) for c in [*comments, *docs]),
            "early_exits": early, "registered_vetoes": vetoes,
            "functions_over_80_lines": sum(1 for f in funcs if (f.end_lineno or f.lineno) - f.lineno + 1 > 80),
        }
    result["total"] = {k: sum(v[k] for v in result.values()) for k in next(iter(result.values()))}
    text = json.dumps(result, indent=2)
    print(text)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="write every rule's outputs on the corpora (PATH:FORMAT:N)")
    rec.add_argument("out", type=Path)
    rec.add_argument("corpora", nargs="+")
    cmp_ = sub.add_parser("compare", help="count identical and differing outputs of two records")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    cmp_.add_argument("-o", "--output", type=Path, default=None, help="results JSON (counts only)")
    mea = sub.add_parser("measure", help="lines, inline word lists, run references, vetoes of Python files")
    mea.add_argument("files", nargs="+", type=Path)
    mea.add_argument("-o", "--output", type=Path, default=None, help="results JSON")
    args = parser.parse_args(argv)
    if args.command == "measure":
        return measure(args.files, args.output)
    if args.command == "record":
        record(args.out, args.corpora)
        return 0
    return compare(args.before, args.after, args.output)


if __name__ == "__main__":
    sys.exit(main())
