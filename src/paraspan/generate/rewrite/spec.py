"""Hand-written rewrite rules as data: a spec per rule, named vetoes, a renderer.

A rule's spec (one entry of ``data/rules.json``) says where the rule may apply and how:

- ``sites``: the kind of place in the parse it looks at (``token``: every token; ``root``: every
  sentence's root; ``root-child``: every child of a root; ``noun-modifier``: a modifier of a noun
  set off by commas; …), each a function registered with :func:`site_source`;
- ``where``: conditions on the site's tokens in the manner of spaCy's ``Matcher`` token patterns
  (``{"v": {"TAG": {"IN": ["VBD", "VBZ"]}, "LEMMA": {"NOT_IN": ["be", "have"]}}}``; a value
  ``"@name"`` in a list stands for the word list ``name``);
- ``bind``: further tokens named by their dependency on a bound one (``{"subj": {"child": "v",
  "dep": ["nsubj"]}}``: the first child of ``v`` with that label; the site is dropped when there is
  none, unless ``"optional": true``), with ``where`` conditions of their own;
- ``vetoes``: the names of predicates (registered with :func:`veto`) that decline a site, tried in
  order;
- ``renderer``: the name of the function (registered with :func:`renderer`) that writes the
  rewrite of a site that passed, or declines it with ``None``.

A rule's version is a hash of its spec, its vetoes' names and code, its renderer's and site
source's code, the code of this package's helpers they call, and the word lists all that code
names: any change to what the rule does changes it.
Specs load on first use; a spec that does not parse, names an unknown veto, renderer, site
source or word list is an error with the file, the line and the fix, raised then.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import importlib
import inspect
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.resources import as_file, files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paraspan.errors import CorpusError
from paraspan.generate.rewrite.core import FAMILIES, Piece, Rule, RuleContext
from paraspan.generate.rewrite.wordlists import load_wordlists, word_list

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

RULES_FILE = "rules.json"
FORMAT = "paraspan-rewrite-rules"
#: the modules that register the vetoes, renderers and site sources the shipped specs name
RULE_MODULES = (
    "paraspan.generate.rewrite.rules_voice",
    "paraspan.generate.rewrite.rules_extraction",
    "paraspan.generate.rewrite.rules_order",
    "paraspan.generate.rewrite.rules_split",
    "paraspan.generate.rewrite.rules_genitive",
    "paraspan.generate.rewrite.rules_words",
    "paraspan.generate.rewrite.rules_connective",
    "paraspan.generate.rewrite.rules_alternation",
)


@dataclass
class Site:
    """One place a rule may apply: the parse, the rule's context, the named tokens and values
    its site source found, and a memo for what several vetoes compute."""

    doc: Doc
    ctx: RuleContext
    tokens: dict[str, Any]
    memo: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.tokens[name]

    def get(self, name: str) -> Any:
        return self.tokens.get(name)

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, once per site: a value several vetoes and the renderer read."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]


Veto = Callable[[Site], bool]
Renderer = Callable[[Site], "list[Piece] | None"]
SiteSource = Callable[..., Iterator[dict[str, Any]]]


@dataclass
class Parts:
    """The named vetoes, renderers and site sources the rule modules register."""

    vetoes: dict[str, Veto] = field(default_factory=dict)
    renderers: dict[str, Renderer] = field(default_factory=dict)
    sources: dict[str, SiteSource] = field(default_factory=dict)


#: filled by the decorators below when a rule module is imported (the modules hold only functions)
PARTS = Parts()


def _register(table: dict[str, Any], kind: str, name: str) -> Callable[[Any], Any]:
    def register(fn: Any) -> Any:
        old = table.get(name)
        # two functions under one name would make a spec's meaning depend on import order
        if old is not None and (old.__module__, old.__qualname__) != (fn.__module__, fn.__qualname__):
            raise ValueError(f"two {kind} functions named {name!r}: {old.__module__}.{old.__qualname__} and "
                             f"{fn.__module__}.{fn.__qualname__}")
        table[name] = fn
        return fn
    return register


def veto(name: str) -> Callable[[Veto], Veto]:
    """Register a predicate that declines a site when it returns True."""
    return _register(PARTS.vetoes, "veto", name)


def renderer(name: str) -> Callable[[Renderer], Renderer]:
    """Register the function that writes a site's rewrite (None: declined)."""
    return _register(PARTS.renderers, "renderer", name)


def site_source(name: str) -> Callable[[SiteSource], SiteSource]:
    """Register a function ``(doc, ctx, **args)`` that yields the named tokens of each site."""
    return _register(PARTS.sources, "site source", name)


# --------------------------------------------------------------------------- token conditions

_ATTRS: dict[str, Callable[[Token], str]] = {
    "TAG": lambda t: t.tag_, "POS": lambda t: t.pos_, "DEP": lambda t: t.dep_, "LEMMA": lambda t: t.lemma_,
    "LOWER": lambda t: t.lower_, "LOWER_LEMMA": lambda t: t.lemma_.lower(), "ENT_TYPE": lambda t: t.ent_type_,
    "TEXT": lambda t: t.text,
}
_OPS = ("IN", "NOT_IN")


@dataclass(frozen=True)
class Condition:
    """``ATTR`` of a token is (``IN``) or is not (``NOT_IN``) among ``values``."""

    attr: str
    op: str
    values: frozenset[str]

    def holds(self, token: Token) -> bool:
        return (_ATTRS[self.attr](token) in self.values) == (self.op == "IN")


@dataclass(frozen=True)
class Binding:
    """A token named by its dependency on a bound one: the first child of ``of`` labelled one of ``deps``."""

    name: str
    of: str
    deps: tuple[str, ...]
    optional: bool = False


@dataclass(frozen=True)
class RuleSpec:
    """One rule as data (see the module docstring)."""

    name: str
    family: str
    description: str
    example: str
    sites: str
    args: dict[str, Any]
    where: dict[str, tuple[Condition, ...]]
    bind: tuple[Binding, ...]
    vetoes: tuple[str, ...]
    renderer: str
    limit: str | None
    raw: dict[str, Any]
    file: str
    line: int | None

    def apply(self, doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
        """Every rewrite of ``doc`` at a site that matches and that no veto declines."""
        import_rule_modules()  # a spec unpickled in another process finds its vetoes registered
        source = PARTS.sources[self.sites]
        vetoes = [PARTS.vetoes[name] for name in self.vetoes]
        render = PARTS.renderers[self.renderer]
        limit = getattr(ctx, self.limit) if self.limit else None
        out: list[list[Piece]] = []
        for tokens in source(doc, ctx, **self.args):
            if limit is not None and len(out) >= limit:
                break
            site = self._bound(doc, ctx, tokens)
            if site is None or any(v(site) for v in vetoes):
                continue
            pieces = render(site)
            if pieces is not None:
                out.append(pieces)
        return out

    def trace(self, doc: Doc, ctx: RuleContext) -> list[str]:
        """For each site that matches, the name of the veto that declined it ("" for none): what the
        regression tests of the vetoes check."""
        found = []
        for tokens in PARTS.sources[self.sites](doc, ctx, **self.args):
            site = self._bound(doc, ctx, tokens)
            if site is not None:
                found.append(next((name for name in self.vetoes if PARTS.vetoes[name](site)), ""))
        return found

    def _bound(self, doc: Doc, ctx: RuleContext, tokens: dict[str, Any]) -> Site | None:
        if not self._holds(tokens, tokens.keys()):
            return None
        for b in self.bind:
            head = tokens.get(b.of)
            found = None if head is None else next((c for c in head.children if c.dep_ in b.deps), None)
            if found is None and not b.optional:
                return None
            tokens[b.name] = found
            if found is not None and not self._holds(tokens, (b.name,)):
                return None
        return Site(doc, ctx, tokens)

    def _holds(self, tokens: dict[str, Any], names: Any) -> bool:
        return all(c.holds(tokens[n]) for n in names if n in self.where for c in self.where[n])

    def depends_on(self) -> tuple[list[Callable[..., Any]], list[str]]:
        """The functions that decide what the rule writes (site source, renderer, vetoes, and the
        helpers of this package they call, in a fixed order) and the word lists they or the spec name."""
        found: dict[str, Callable[..., Any]] = {}
        todo = [PARTS.sources[self.sites], PARTS.renderers[self.renderer], *(PARTS.vetoes[n] for n in self.vetoes)]
        while todo:
            fn = todo.pop(0)
            key = f"{fn.__module__}.{fn.__qualname__}"
            if key in found:
                continue
            found[key] = fn
            todo += [g for g in _called(fn) if g.__module__.startswith(__package__ or "")]
        functions = list(found.values())
        text = "\n".join(inspect.getsource(fn) for fn in functions)
        lists = set(re.findall(r'\b(?:words|word_map|word_list)\(\s*"([a-z0-9-]+)"\)', text)) | _lists_in(self.raw)
        return functions, sorted(lists)

    @functools.cached_property
    def version(self) -> str:
        """A hash of everything that decides what the rule writes (see the module docstring)."""
        functions, lists = self.depends_on()
        parts = [json.dumps(self.raw, sort_keys=True), *self.vetoes, *(inspect.getsource(fn) for fn in functions)]
        for name in lists:
            wl = word_list(name)
            parts.append(json.dumps([name, sorted(wl.reasons.items()), sorted((wl.values or {}).items())]))
        return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]

    def rule(self) -> Rule:
        return Rule(self.name, self.family, "hand", self.apply, version=self.version,
                    description=self.description, example=self.example)


def _called(fn: Callable[..., Any]) -> list[Callable[..., Any]]:
    """The module-level functions ``fn``'s code names (its nested functions' too), in order."""
    names: list[str] = []
    codes = [fn.__code__]
    while codes:
        code = codes.pop(0)
        names += code.co_names
        codes += [c for c in code.co_consts if inspect.iscode(c)]
    scope = fn.__globals__
    return [scope[n] for n in dict.fromkeys(names) if inspect.isfunction(scope.get(n))]


def _lists_in(raw: Any) -> set[str]:
    if isinstance(raw, str):
        return {raw[1:]} if raw.startswith("@") else set()
    if isinstance(raw, dict):
        return set().union(*(_lists_in(v) for v in raw.values())) if raw else set()
    if isinstance(raw, list):
        return set().union(*(_lists_in(v) for v in raw)) if raw else set()
    return set()


# --------------------------------------------------------------------------- loading


def shipped_path() -> Path:
    resource = files("paraspan.generate.rewrite") / "data" / RULES_FILE
    with as_file(resource) as path:
        return Path(path)


def _line_of(text: str, needle: str, start: int = 0) -> int | None:
    at = text.find(needle, start)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


class _SpecReader:
    """Reads one rule's spec, raising E471/E472 at its line."""

    KEYS = {"family", "description", "example", "sites", "args", "where", "bind", "vetoes", "renderer", "limit"}

    def __init__(self, path: Path, text: str, name: str, raw: Any) -> None:
        self.path, self.text, self.name, self.raw = path, text, name, raw
        self.line = _line_of(text, json.dumps(name) + ":")

    def fail(self, problem: str, fix: str, needle: str | None = None) -> CorpusError:
        start = self.text.find(json.dumps(self.name) + ":")
        line = _line_of(self.text, needle, max(start, 0)) if needle else None
        return CorpusError.from_code("E471", file=str(self.path), line=line or self.line, rule=self.name,
                                     problem=problem, fix_hint=fix)

    def unknown(self, kind: str, value: str, known: Any) -> CorpusError:
        start = self.text.find(json.dumps(self.name) + ":")
        line = _line_of(self.text, json.dumps(value), max(start, 0))
        known = sorted(known)
        # the nearest names first: a typo is the usual cause, and a list of 240 vetoes helps no one
        near = difflib.get_close_matches(value, known, n=5, cutoff=0.5) or known[:5]
        more = f" (and {len(known) - len(near)} more)" if len(known) > len(near) else ""
        return CorpusError.from_code("E472", file=str(self.path), line=line or self.line, rule=self.name, kind=kind,
                                     value=value, known=(", ".join(near) + more) or "(none)")

    def conditions(self, where: Any, lists: dict[str, Any]) -> dict[str, tuple[Condition, ...]]:
        if not isinstance(where, dict):
            raise self.fail('"where" is not an object', 'write {"<token>": {"TAG": {"IN": [...]}}}', '"where"')
        out: dict[str, tuple[Condition, ...]] = {}
        for token, attrs in where.items():
            conds = []
            if not isinstance(attrs, dict):
                raise self.fail(f'the conditions on "{token}" are not an object', 'write {"TAG": {"IN": [...]}}',
                                json.dumps(token))
            for attr, test in attrs.items():
                if attr not in _ATTRS:
                    raise self.unknown("token attribute", attr, _ATTRS)
                if not (isinstance(test, dict) and len(test) == 1 and next(iter(test)) in _OPS
                        and isinstance(next(iter(test.values())), list)):
                    raise self.fail(f'the condition on {token}\'s {attr} is not {{"IN": [...]}} or {{"NOT_IN": [...]}}',
                                    'write {"IN": ["VBD"]} or {"NOT_IN": ["@word-list"]}', json.dumps(attr))
                op, values = next(iter(test.items()))
                found: set[str] = set()
                for v in values:
                    if isinstance(v, str) and v.startswith("@"):
                        if v[1:] not in lists:
                            raise self.unknown("word list", v, ("@" + n for n in lists))
                        found |= lists[v[1:]].words
                    else:
                        found.add(str(v))
                conds.append(Condition(attr, op, frozenset(found)))
            out[token] = tuple(conds)
        return out

    def spec(self, lists: dict[str, Any]) -> RuleSpec:
        raw = self.raw
        if not isinstance(raw, dict):
            raise self.fail("the spec is not an object", 'write {"family": ..., "sites": ..., "renderer": ...}')
        extra = set(raw) - self.KEYS
        if extra:
            key = sorted(extra)[0]
            raise self.fail(f'unknown key "{key}"', "use only: " + ", ".join(sorted(self.KEYS)), json.dumps(key))
        for key in ("family", "sites", "renderer", "description", "example"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise self.fail(f'"{key}" is missing or not a string', f'add "{key}": "..."')
        if raw["family"] not in FAMILIES:
            raise self.unknown("family", raw["family"], FAMILIES)
        if raw["sites"] not in PARTS.sources:
            raise self.unknown("site source", raw["sites"], PARTS.sources)
        if raw["renderer"] not in PARTS.renderers:
            raise self.unknown("renderer", raw["renderer"], PARTS.renderers)
        vetoes = raw.get("vetoes", [])
        if not isinstance(vetoes, list) or not all(isinstance(v, str) for v in vetoes):
            raise self.fail('"vetoes" is not a list of names', 'write "vetoes": ["name", ...]', '"vetoes"')
        for name in vetoes:
            if name not in PARTS.vetoes:
                raise self.unknown("veto", name, PARTS.vetoes)
        args = raw.get("args", {})
        if not isinstance(args, dict):
            raise self.fail('"args" is not an object', 'write "args": {"name": value}', '"args"')
        params = inspect.signature(PARTS.sources[raw["sites"]]).parameters
        for key in args:
            if key not in params or key in ("doc", "ctx"):
                raise self.unknown(f"argument of site source {raw['sites']!r}", key,
                                   [p for p in params if p not in ("doc", "ctx")])
        bind = []
        for bname, b in raw.get("bind", {}).items():
            if not (isinstance(b, dict) and isinstance(b.get("child"), str) and isinstance(b.get("dep"), list)
                    and set(b) <= {"child", "dep", "optional"}):
                raise self.fail(f'binding "{bname}" is not {{"child": <token>, "dep": [...]}}',
                                'write "bind": {"subj": {"child": "v", "dep": ["nsubj"]}}', json.dumps(bname))
            bind.append(Binding(bname, b["child"], tuple(b["dep"]), bool(b.get("optional", False))))
        limit = raw.get("limit")
        if limit is not None and limit not in {"max_lexical"}:
            raise self.unknown("limit", str(limit), ["max_lexical"])
        return RuleSpec(self.name, raw["family"], raw["description"], raw["example"], raw["sites"], dict(args),
                        self.conditions(raw.get("where", {}), lists), tuple(bind), tuple(vetoes), raw["renderer"],
                        limit, raw, str(self.path), self.line)


def import_rule_modules() -> None:
    """Import the modules that register the vetoes, renderers and site sources (once per process)."""
    for module in RULE_MODULES:
        importlib.import_module(module)


@functools.cache
def load_specs(path: Path | None = None) -> dict[str, RuleSpec]:
    """Every rule spec of the file at ``path`` (default: the shipped one), checked against the
    registered vetoes, renderers, site sources and the word lists."""
    import_rule_modules()
    path = path or shipped_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CorpusError.from_code("E470", file=str(path), problem=f"cannot be read ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CorpusError.from_code("E470", file=str(path), line=getattr(exc, "lineno", None),
                                    problem=f"is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("rules"), dict):
        raise CorpusError.from_code("E470", file=str(path), line=1,
                                    problem=f'is not a rules file ({{"format": "{FORMAT}", "rules": {{…}}}})')
    lists = load_wordlists()
    return {name: _SpecReader(path, text, name, raw).spec(lists) for name, raw in data["rules"].items()}


def spec_rules(path: Path | None = None) -> dict[str, Rule]:
    """The rules of the specs at ``path`` (default: the shipped ones), by name."""
    return {name: spec.rule() for name, spec in load_specs(path).items()}
