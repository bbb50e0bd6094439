"""The wheel: `python -m build` makes one, and it installs into a fresh virtual environment where
`paraspan --version`, `paraspan doctor` and a small augmentation run (the README's quickstart, as written).

The fresh environment takes its third-party packages (torch, spaCy, the model packages) from this one's
site-packages through a .pth file, and paraspan itself only from the wheel (`pip install --no-deps`):
nothing is downloaded, and an editable install of the work tree cannot stand in for the wheel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.test_api import readme_quickstart

REPO = Path(__file__).resolve().parents[1]


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900, **kwargs)
    assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
def test_the_wheel_installs_into_a_fresh_venv_and_augments(tmp_path: Path) -> None:
    pytest.importorskip("build")
    # built from a copy of what the sdist holds, so the work tree gets no build/ folder
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    dist = tmp_path / "dist"
    # --no-isolation: the build backend (setuptools) of this environment, no download, when it is recent
    # enough (pyproject asks for 77); -x: setuptools builds wheels itself (`wheel` is not needed since 70.1).
    # Otherwise build's own isolated environment, from the package index.
    import setuptools

    local = int(setuptools.__version__.split(".")[0]) >= 77
    _run([sys.executable, "-m", "build", "--wheel", *(["--no-isolation", "-x"] if local else []),
          "--outdir", str(dist), str(source)])
    (wheel,) = dist.glob("paraspan-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "paraspan/data/demo/framenet_demo.jsonl" in names and "paraspan/api.py" in names
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "paraspan.store.v1 = paraspan.spacy_augmenter:store_augmenter" in entry_points
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    (Path(site) / "parent-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)])
    where = _run([str(python), "-c", "import paraspan; print(paraspan.__file__)"], cwd=tmp_path).stdout
    assert where.startswith(site), where  # the wheel's paraspan, not the work tree's
    paraspan = venv / "bin" / "paraspan"
    assert _run([str(paraspan), "--version"]).stdout.strip().endswith("0.1.0")
    _run([str(paraspan), "doctor", "--only", "spacy", "--only", "lemminflect"])
    (tmp_path / "quickstart.py").write_text(readme_quickstart(), encoding="utf-8")
    out = _run([str(python), "quickstart.py"], cwd=tmp_path).stdout
    assert "→" in out and (tmp_path / "augmented.jsonl").read_text(encoding="utf-8").count("\n") >= 1
