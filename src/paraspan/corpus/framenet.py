"""FrameNet XML release reader (full text and LU exemplars), from a folder or a ``.tar.gz``.

``read_framenet(path)`` streams one :class:`~paraspan.corpus.schema.Sentence` per
``<sentence>`` of the full-text documents (``fulltext/*.xml``), or, with ``exemplars=True``,
per exemplar sentence of the lexical-unit files (``lu/*.xml``). The XML is parsed here with
lxml; NLTK's reader is not used because it resolves every annotation set's frame through the
frame index and fails on the two FrameNet 1.5 documents that name frame 398 ("Test35"),
which the index lacks. This reader never consults the frame index, so every document loads.

Definitions (they reproduce the published FrameNet 1.5 split sizes: test 23 documents /
2,420 sentences / 4,459 frames, dev 8 / 387 / 2,333):

* **sentence** — every ``<sentence>`` of a selected document, including the ones that carry
  no frame annotation at all (they come out with ``structures == []``);
* **frame structure** — every ``<annotationSet>`` that has a ``frameName`` attribute,
  whatever its ``status`` (``MANUAL`` and ``UNANN`` both count: an ``UNANN`` set is a marked
  target whose frame elements were not annotated) and even when its Target layer is empty
  (then ``anchor`` is ``None``; FN 1.5 has 4 such sets, one of them in test). The
  annotation sets without a frame are the sentence-level POS/NER layers and are skipped.
  Filter on ``structure.extra["status"]`` / ``anchor is not None`` for stricter counts
  (test: 4,036 ``MANUAL`` sets, 4,458 with a target).

Train (the 47 documents in neither list) comes to 3,139 sentences / 17,152 frames / 29,630
args; dev has 4,063 args and test 7,210.

Layout of a frame structure: ``label`` = frame name; ``anchor`` = the target, labelled with
the LU name (``"sell.v"``); ``args`` = the labels of the FE layer of rank 1, labelled with the
FE name. FrameNet's ``end`` is inclusive and is converted to an exclusive end. ``extra`` holds
``frame_id``, ``lu_id``, ``annoset_id``, ``status`` and, when there are any:

* ``anchor_rest`` — ``[[start, end], ...]``: the further pieces of a discontinuous target
  (the anchor is the first contiguous piece; pieces separated only by whitespace are merged);
* ``null_args`` — ``[{"label": FE, "itype": "DNI"}]``: null-instantiated FEs (no offsets);
* ``more_args`` — ``[{"start", "end", "label", "rank"}]``: FE labels of layers of rank > 1;
* ``dropped`` — ``[{"role", "label", "start", "end", "reason"}]``: malformed spans (missing,
  out of range, empty or blank) that were left out instead of failing the read. Their number
  is also in ``sentence.meta["dropped_spans"]`` and logged once at the end.

Exemplars (``lu/*.xml``): a frame structure per annotation set with a Target or FE layer
(LU files do not name the frame on the set; it comes from the file's ``<lexUnit>``). FN 1.5
gives 154,466 sentences / 154,607 frames / 316,422 args: 19 sentences sit in two subcorpora
of the same LU with different annotation sets and are merged into one sentence
(``meta["also_in_subcorpora"]``), so that ids stay unique.

Sentence ids are ``fn15:<document>:<sentence ID>`` for full text and
``fn15:lu<LU ID>:<sentence ID>`` for exemplars (``fn17`` for release 1.7, and so on; the
release is read from the folder or archive name, ``fndata-1.5``, else from README.txt).

A ``.tar.gz`` is read in one streaming pass (random access into a gzip stream would
decompress it again for every member). Full-text documents come out sorted by file name in
both cases; exemplars come in LU-id order from a folder and in archive order from an archive
(buffering 500 MB of LU files to sort them is not worth it).
"""

from __future__ import annotations

import json
import logging
import re
import tarfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import CorpusError

__all__ = ["NS", "SPLITS", "Release", "namespace_of", "parse_xml", "read_framenet"]

log = logging.getLogger(__name__)

#: The namespace of every FrameNet XML file.
NS = "http://framenet.icsi.berkeley.edu"
SPLITS = ("train", "dev", "test")

# Entries at the top of a release; an archive member whose first component is none of
# these sits under a top folder (``fndata-1.5/``), which is stripped.
_TOP_ENTRIES = frozenset({
    "frame", "fulltext", "lu", "schema", "docs", "frRelation.xml", "frameIndex.xml",
    "luIndex.xml", "fulltextIndex.xml", "semTypes.xml", "README.txt",
})
_VERSION = re.compile(r"(\d+)\.(\d+)")
_TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")


# --------------------------------------------------------------------------- release access


def _natural_key(name: str) -> list[Any]:
    # lu10.xml < lu100.xml < lu1000.xml would sort lexically otherwise
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _relative(member: str) -> str:
    """The path of an archive member relative to the release root."""
    parts = [p for p in member.split("/") if p not in ("", ".")]
    if len(parts) > 1 and parts[0] not in _TOP_ENTRIES:
        parts = parts[1:]
    return "/".join(parts)


@dataclass
class Release:
    """A FrameNet release on disk: a folder (``fndata-1.5/``) or a tar archive of one."""

    location: Path
    archive: bool
    version: str = "unknown"

    @classmethod
    def open(cls, path: str | Path) -> Release:
        location = Path(path)
        if not location.exists():
            raise CorpusError.from_code("E010", file=str(location), what="file or folder",
                                        fix="give the FrameNet release folder or its .tar.gz")
        if location.is_dir():
            root = cls._find_root(location)
            version = cls._version_of(root.name) or cls._version_of(location.name) or cls._readme_version(root)
            return cls(root, False, version or "unknown")
        if not location.name.endswith(_TAR_SUFFIXES) and not tarfile.is_tarfile(location):
            raise CorpusError.from_code("E210", file=str(location), problem="not a FrameNet release",
                                        fix="give the release folder (with fulltext/, frame/, lu/) or the "
                                            ".tar.gz it came in")
        version = cls._version_of(location.name) or cls._version_of(cls._archive_top(location)) or "unknown"
        return cls(location, True, version)

    @staticmethod
    def _find_root(folder: Path) -> Path:
        def is_root(p: Path) -> bool:
            return any((p / sub).is_dir() for sub in ("fulltext", "frame", "lu"))

        if is_root(folder):
            return folder
        # also accept the folder the release was unpacked into
        inner = [p for p in folder.iterdir() if p.is_dir() and is_root(p)]
        if len(inner) == 1:
            return inner[0]
        raise CorpusError.from_code("E210", file=str(folder),
                                    problem="not a FrameNet release (no fulltext/, frame/ or lu/ folder)",
                                    fix="give the release folder, e.g. fndata-1.5/, or its .tar.gz")

    @staticmethod
    def _version_of(name: str) -> str | None:
        match = _VERSION.search(name)
        return f"{match.group(1)}.{match.group(2)}" if match else None

    @staticmethod
    def _readme_version(root: Path) -> str | None:
        # "Welcome to Release 1.5 of the FrameNet data!"
        try:
            head = (root / "README.txt").read_text(encoding="utf-8", errors="replace")[:2000]
        except OSError:
            return None
        match = re.search(r"release (\d+\.\d+)", head, re.IGNORECASE)
        return match.group(1) if match else None

    @staticmethod
    def _archive_top(location: Path) -> str:
        try:
            with tarfile.open(location, "r|*") as tar:
                first = tar.next()
                return first.name.split("/")[0] if first is not None else ""
        except (tarfile.TarError, OSError, EOFError, zlib.error):
            return ""  # reported properly when the members are read

    @property
    def id_prefix(self) -> str:
        return "fn" + self.version.replace(".", "") if self.version != "unknown" else "fn"

    def display(self, rel: str) -> str:
        """How to name a release file in messages: its path, or ``archive/member``."""
        return f"{self.location}/{rel}"

    def exists(self, rel: str) -> bool:
        """Whether a folder release has ``rel`` (archives cannot tell without a full pass)."""
        return self.archive or (self.location / rel).exists()

    def members(self, folders: Iterable[str] = (), files: Iterable[str] = (),
                done: Callable[[], bool] | None = None) -> Iterator[tuple[str, bytes]]:
        """Yield ``(relative path, bytes)`` for the ``*.xml`` files of ``folders`` and for ``files``.

        A folder is listed in natural order; an archive is read once, in member order, and the
        pass stops early as soon as ``done()`` says the caller has all it needs.
        """
        folders = tuple(folders)
        files = tuple(files)
        if not self.archive:
            for rel in files:
                if (self.location / rel).is_file():
                    yield rel, self._read(rel)
            for folder in folders:
                base = self.location / folder
                if not base.is_dir():
                    continue
                for entry in sorted(base.glob("*.xml"), key=lambda p: _natural_key(p.name)):
                    yield f"{folder}/{entry.name}", self._read(f"{folder}/{entry.name}")
            return
        wanted_files = set(files)
        wanted_folders = set(folders)
        ending: list[str] = []  # how the member headers ended (see _EndOfArchive)
        members = 0
        try:
            # "r|*": a forward-only stream; each member is read at most once
            with tarfile.open(self.location, "r|*", tarinfo=_end_of_archive(ending)) as tar:
                for member in tar:
                    members += 1
                    if not member.isfile():
                        continue
                    rel = _relative(member.name)
                    head, _, tail = rel.rpartition("/")
                    if rel in wanted_files or (head in wanted_folders and tail.endswith(".xml")):
                        handle = tar.extractfile(member)
                        if handle is not None:
                            yield rel, handle.read()
                        if done is not None and done():
                            return
        except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
            raise CorpusError.from_code("E217", file=str(self.location), exc=exc) from None
        if ending and ending[0] != "end marker":
            raise CorpusError.from_code("E051", file=str(self.location), members=members)

    def _read(self, rel: str) -> bytes:
        try:
            return (self.location / rel).read_bytes()
        except OSError as exc:
            raise CorpusError.from_code("E053", file=self.display(rel), reason=exc.strerror or exc) from None


def _end_of_archive(ending: list[str]) -> type[tarfile.TarInfo]:
    """A TarInfo class that records in ``ending`` how the member headers ended: "end marker" (the
    zero block a complete archive ends with) or "cut" (the file stops between two members, or goes on
    with bytes that are no header, which tarfile takes for the end without a word)."""

    class _Info(tarfile.TarInfo):
        @classmethod
        def fromtarfile(cls, tar: tarfile.TarFile) -> tarfile.TarInfo:
            try:
                return super().fromtarfile(tar)
            except tarfile.EOFHeaderError:
                ending[:] = ["end marker"]
                raise
            except (tarfile.EmptyHeaderError, tarfile.TruncatedHeaderError, tarfile.InvalidHeaderError):
                ending[:] = ["cut"]
                raise

    return _Info


def parse_xml(data: bytes, display: str) -> etree._Element:
    """Parse one XML file; malformed XML raises :class:`CorpusError` with file and line, and so does an
    entity the file does not define (lxml would keep it as a node and the text around it would be cut)."""
    # no entity resolution or network access: the release is data, not trusted markup
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno else (exc.position[0] if exc.position else None)
        undefined = re.match(r"Entity '([^']{1,100})' not defined", exc.msg or "")
        if undefined:
            raise CorpusError.from_code("E052", file=display, line=line, name=undefined.group(1)) from None
        raise CorpusError.from_code("E211", file=display, line=line, msg=exc.msg) from None
    if b"&" in data:
        for entity in root.iter(etree.Entity):
            raise CorpusError.from_code("E052", file=display, line=entity.sourceline,
                                        name=str(entity.name)[:100])
    return root


def namespace_of(root: etree._Element) -> str:
    """The ``{namespace}`` prefix of the root's tag ('' when the file has none)."""
    tag = root.tag
    return tag[: tag.index("}") + 1] if isinstance(tag, str) and tag.startswith("{") else ""


# --------------------------------------------------------------------------- splits


def _load_splits(splits: str | Path) -> dict[str, set[str]]:
    """Read the split file: ``{"dev": [doc.xml, ...], "test": [...]}`` (``train`` optional)."""
    path = Path(splits)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError.from_code("E010", file=str(path), what="split file",
                                    fix="give the JSON file that lists the dev/test documents") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CorpusError.from_code("E214", file=str(path), problem=f"the split file is not valid JSON: {exc}",
                                    fix="it must be an object of document lists") from None
    if not isinstance(data, dict):
        raise CorpusError.from_code("E214", file=str(path), problem="the split file must be a JSON object",
                                    fix='write {"dev": [...], "test": [...]}')
    table: dict[str, set[str]] = {}
    for name in SPLITS:
        docs = data.get(name)
        if docs is None:
            continue
        if not isinstance(docs, list) or not all(isinstance(d, str) for d in docs):
            raise CorpusError.from_code("E214", file=str(path),
                                        problem=f"split {name!r} must be a list of document file names",
                                        fix='e.g. "dev": ["ANC__X.xml"]')
        table[name] = {d.removesuffix(".xml") for d in docs}
    if "dev" not in table and "test" not in table:
        raise CorpusError.from_code("E214", file=str(path), problem="the split file lists neither 'dev' nor 'test'",
                                    fix='write {"dev": [...], "test": [...]}')
    return table


def _split_of(doc: str, table: dict[str, set[str]]) -> str | None:
    for name in ("dev", "test"):
        if doc in table.get(name, ()):
            return name
    if "train" in table:
        return "train" if doc in table["train"] else None
    return "train"  # the usual convention: every document not held out is train


# --------------------------------------------------------------------------- annotation sets


@dataclass
class _Counter:
    """Malformed spans seen over one read (for the closing log line)."""

    spans: int = 0
    sentences: int = 0


def _as_id(value: str | None) -> int | str | None:
    return int(value) if value is not None and value.isdigit() else value


def _offsets(label: etree._Element, text: str) -> tuple[int, int] | str:
    """``(start, exclusive end)`` of a label, or why it cannot be used."""
    raw_start, raw_end = label.get("start"), label.get("end")
    if raw_start is None or raw_end is None:
        return "no offsets"
    try:
        start, end = int(raw_start), int(raw_end) + 1  # FrameNet's end is inclusive
    except ValueError:
        return "offsets are not integers"
    if start < 0 or end > len(text):
        return "out of range"
    if start >= end:
        return "empty"
    if not text[start:end].strip():
        return "blank"
    return start, end


def _merge(pieces: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Sort target pieces and join those separated only by whitespace."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(set(pieces)):
        if merged and not text[merged[-1][1]:start].strip():
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _structure(aset: etree._Element, ns: str, text: str, frame: str, frame_id: Any, lu: str | None,
               lu_id: Any) -> tuple[Structure, int]:
    """One frame structure from an annotation set; returns it with its number of dropped spans."""
    target_tag, label_tag = f"{ns}layer", f"{ns}label"
    pieces: list[tuple[int, int]] = []
    args: list[Span] = []
    nulls: list[dict[str, Any]] = []
    more: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    for layer in aset.iterchildren(target_tag):
        name = layer.get("name")
        if name == "Target":
            for label in layer.iterchildren(label_tag):
                got = _offsets(label, text)
                if isinstance(got, str):
                    dropped.append({"role": "anchor", "label": lu, "start": label.get("start"),
                                    "end": label.get("end"), "reason": got})
                else:
                    pieces.append(got)
        elif name == "FE":
            rank = layer.get("rank", "1")
            for label in layer.iterchildren(label_tag):
                fe = label.get("name") or ""
                itype = label.get("itype")
                if itype is not None:
                    nulls.append({"label": fe, "itype": itype})
                    continue
                got = _offsets(label, text)
                if isinstance(got, str) or not fe.strip():
                    dropped.append({"role": "arg", "label": fe, "start": label.get("start"),
                                    "end": label.get("end"), "reason": got if isinstance(got, str) else "no FE name"})
                elif rank == "1":
                    args.append(Span(got[0], got[1], fe))
                else:
                    more.append({"start": got[0], "end": got[1], "label": fe, "rank": _as_id(rank)})
    merged = _merge(pieces, text)
    anchor = Span(merged[0][0], merged[0][1], lu) if merged else None
    extra: dict[str, Any] = {"frame_id": frame_id, "lu_id": lu_id, "annoset_id": _as_id(aset.get("ID")),
                             "status": aset.get("status")}
    if len(merged) > 1:
        extra["anchor_rest"] = [[s, e] for s, e in merged[1:]]
    if nulls:
        extra["null_args"] = nulls
    if more:
        extra["more_args"] = more
    if dropped:
        extra["dropped"] = dropped
    return Structure("frame", frame, anchor, args, extra), len(dropped)


def _is_frame_set(aset: etree._Element, ns: str) -> bool:
    """In an LU file the frame sets carry no frameName: they are the ones with Target/FE layers."""
    for layer in aset.iterchildren(f"{ns}layer"):
        if layer.get("name") in ("Target", "FE"):
            return True
    return False


def _sentence(sent: etree._Element, ns: str, sid: str, meta: dict[str, Any], counter: _Counter,
              lu_default: tuple[str, Any, str, Any] | None = None) -> Sentence:
    """A Sentence from a ``<sentence>``; ``lu_default`` = (frame, frame id, LU, LU id) of an LU file."""
    text_el = sent.find(f"{ns}text")
    text = (text_el.text or "") if text_el is not None else ""
    structures: list[Structure] = []
    dropped = 0
    for aset in sent.iterchildren(f"{ns}annotationSet"):
        frame = aset.get("frameName")
        if frame is not None:
            structure, n = _structure(aset, ns, text, frame, _as_id(aset.get("frameID")), aset.get("luName"),
                                      _as_id(aset.get("luID")))
        elif lu_default is not None and _is_frame_set(aset, ns):
            structure, n = _structure(aset, ns, text, *lu_default)
        else:
            continue  # sentence-level POS / NER / WSL layers
        structures.append(structure)
        dropped += n
    if dropped:
        meta["dropped_spans"] = dropped
        counter.spans += dropped
        counter.sentences += 1
    return Sentence(sid, text, structures, meta)


def _fulltext_document(data: bytes, display: str, doc: str, release: Release, split: str | None,
                       counter: _Counter) -> Iterator[Sentence]:
    root = parse_xml(data, display)
    ns = namespace_of(root)
    corpus_el = root.find(f"{ns}header/{ns}corpus")
    corpus = corpus_el.get("name") if corpus_el is not None else None
    for sent in root.iterchildren(f"{ns}sentence"):
        meta: dict[str, Any] = {"source": "framenet", "release": release.version, "doc": doc}
        if corpus is not None:
            meta["corpus"] = corpus
        if split is not None:
            meta["split"] = split
        for attr, key in (("paragNo", "paragraph_no"), ("sentNo", "sentence_no")):
            value = sent.get(attr)
            if value is not None:
                meta[key] = _as_id(value)
        sid = f"{release.id_prefix}:{doc}:{sent.get('ID')}"
        yield _sentence(sent, ns, sid, meta, counter)


def _lu_file(data: bytes, display: str, release: Release, counter: _Counter) -> Iterator[Sentence]:
    root = parse_xml(data, display)
    ns = namespace_of(root)
    lu_id = _as_id(root.get("ID"))
    lu_name = root.get("name")
    frame = root.get("frame") or ""
    default = (frame, _as_id(root.get("frameID")), lu_name, lu_id)
    # A few sentences sit in two subcorpora of one LU with different annotation sets (19 in
    # FN 1.5): merge them so that ids stay unique and no annotation set is lost.
    out: dict[str, Sentence] = {}
    for sub in root.iterchildren(f"{ns}subCorpus"):
        subcorpus = sub.get("name")
        for sent in sub.iterchildren(f"{ns}sentence"):
            meta: dict[str, Any] = {"source": "framenet", "release": release.version, "lu": lu_name,
                                    "frame": frame, "subcorpus": subcorpus}
            sid = f"{release.id_prefix}:lu{lu_id}:{sent.get('ID')}"
            sentence = _sentence(sent, ns, sid, meta, counter, default)
            first = out.get(sid)
            if first is None:
                out[sid] = sentence
            elif first.text == sentence.text:
                first.structures.extend(sentence.structures)
                first.meta.setdefault("also_in_subcorpora", []).append(subcorpus)
                if "dropped_spans" in sentence.meta:
                    first.meta["dropped_spans"] = first.meta.get("dropped_spans", 0) + sentence.meta["dropped_spans"]
            else:  # same id, different text: keep both, apart
                n = 2
                while f"{sid}#{n}" in out:
                    n += 1
                sentence.id = f"{sid}#{n}"
                out[sentence.id] = sentence
    yield from out.values()


# --------------------------------------------------------------------------- the reader


def read_framenet(path: str | Path, *, split: str | None = None, splits: str | Path | None = None,
                  exemplars: bool = False) -> Iterator[Sentence]:
    """Stream FrameNet sentences from a release folder or its ``.tar.gz``.

    ``split`` (``train``/``dev``/``test``) keeps the full-text documents of one split and needs
    ``splits``, a JSON file ``{"dev": [...], "test": [...]}`` of document file names (every other
    document is train, unless the file also lists ``train``). ``splits`` alone tags every
    sentence with ``meta["split"]``. ``exemplars=True`` reads the LU exemplar sentences
    instead of the full text (splits do not apply to them). See the module docstring for the
    structure layout and for which annotation sets count as frames.
    """
    # options are checked now, not on the first next(), so that mistakes surface at the call
    if split is not None and split not in SPLITS:
        raise CorpusError.from_code("E213", split=split, choices=", ".join(SPLITS))
    if split is not None and splits is None:
        raise CorpusError.from_code("E212", split=split)
    if exemplars and (split is not None or splits is not None):
        raise CorpusError.from_code("E216")
    table = _load_splits(splits) if splits is not None else None
    release = Release.open(path)
    if exemplars:
        if not release.exists("lu"):
            raise CorpusError.from_code("E210", file=str(release.location), problem="the release has no lu/ folder",
                                        fix="exemplars are read from lu/*.xml")
        return _read_exemplars(release)
    if not release.exists("fulltext"):
        raise CorpusError.from_code("E210", file=str(release.location), problem="the release has no fulltext/ folder",
                                    fix="give a FrameNet release folder or .tar.gz")
    return _read_fulltext(release, split, table)


def _read_fulltext(release: Release, split: str | None, table: dict[str, set[str]] | None) -> Iterator[Sentence]:
    counter = _Counter()
    present: set[str] = set()
    selected: list[tuple[str, str | None, str, bytes]] = []
    for rel, data in release.members(folders=("fulltext",)):
        doc = rel.rpartition("/")[2].removesuffix(".xml")
        present.add(doc)
        doc_split = _split_of(doc, table) if table is not None else None
        if split is None or doc_split == split:
            selected.append((doc, doc_split, rel, data))
    if not present:
        raise CorpusError.from_code("E210", file=str(release.location),
                                    problem="the release has no full-text documents (fulltext/*.xml)",
                                    fix="give a FrameNet release folder or .tar.gz")
    if table is not None:
        _warn_missing(table, present, release)
    # archive order is not file-name order: sort so that folder and archive read the same
    selected.sort(key=lambda item: item[0])
    for doc, doc_split, rel, data in selected:
        yield from _fulltext_document(data, release.display(rel), doc, release, doc_split, counter)
    _log_dropped(counter)


def _warn_missing(table: dict[str, set[str]], present: set[str], release: Release) -> None:
    # a split file made for another release (1.7 lists documents 1.5 lacks) would shrink a split silently
    for name, docs in table.items():
        missing = sorted(docs - present)
        if missing:
            log.warning("%d document(s) of split %r are not in %s: %s", len(missing), name, release.location,
                        ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else ""))


def _read_exemplars(release: Release) -> Iterator[Sentence]:
    counter = _Counter()
    files = 0
    for rel, data in release.members(folders=("lu",)):
        files += 1
        yield from _lu_file(data, release.display(rel), release, counter)
    if not files:
        raise CorpusError.from_code("E210", file=str(release.location),
                                    problem="the release has no lexical-unit files (lu/*.xml)",
                                    fix="exemplars are read from lu/*.xml")
    _log_dropped(counter)


def _log_dropped(counter: _Counter) -> None:
    if counter.spans:
        log.warning("dropped %d malformed span(s) in %d sentence(s) (see structure extra 'dropped')",
                    counter.spans, counter.sentences)
