"""A user's first steps: ``pip install .`` into a fresh virtual environment, ``import persona_metrics``, then
``evaluate.load("perseval")`` by bare name, offline, in new processes with their own Hugging Face home.

The fresh environment sees the dependencies of the test environment through a ``.pth`` line (installing them
again would need the network); persona-metrics itself is built from a copy of the source tree and installed as
a regular (non-editable) package, so the test also checks that the wheel carries the metric scripts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = ("src", "metrics", "setup.cfg", "pyproject.toml", "README.md")
LOAD = """
import evaluate
{prefix}
result = evaluate.load("perseval").compute(
    predictions=["Harbor Foods lifts its outlook", "Two new Harbor Foods stores open"],
    references=["Harbor Foods lifts its outlook", "Two new Harbor Foods stores open"],
    documents=["Harbor Foods raised its outlook and opened two stores."] * 2,
)
print(round(result["degress"], 6))
"""


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("install")
    source = tmp / "source"
    source.mkdir()
    for name in FILES:
        src = ROOT / name
        if src.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(src, source / name, symlinks=True, ignore=ignore)
        else:
            shutil.copyfile(src, source / name)
    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    (Path(purelib) / "_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
               "--no-build-isolation", "--no-index", str(source)]  # fmt: skip
    proc = subprocess.run(install, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return python


def run(python: Path, code: str, home: Path, **env: str) -> subprocess.CompletedProcess:
    home.mkdir(exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "PERSONA_METRICS_"))}
    environ.update(HF_HOME=str(home), HF_EVALUATE_OFFLINE="1", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", **env)
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=environ, cwd=home, timeout=300)


def test_pip_install_then_import_makes_bare_name_load_work(fresh_python, tmp_path) -> None:
    where = run(fresh_python, "import persona_metrics; print(persona_metrics.__file__)", tmp_path)
    assert where.returncode == 0, where.stderr
    assert str(fresh_python.parents[1]) in where.stdout  # the installed copy, not the source tree
    # a fresh home: importing persona_metrics registers, then the bare name resolves offline
    proc = run(fresh_python, LOAD.format(prefix="import persona_metrics"), tmp_path / "home1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "1.0"
    # later processes need not import persona_metrics: the registration persists in the modules cache
    proc = run(fresh_python, LOAD.format(prefix=""), tmp_path / "home1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "1.0"


def test_opting_out_leaves_evaluate_without_the_modules(fresh_python, tmp_path) -> None:
    proc = run(
        fresh_python, LOAD.format(prefix="import persona_metrics"), tmp_path / "home2",
        PERSONA_METRICS_NO_AUTO_REGISTER="1",
    )  # fmt: skip
    assert proc.returncode != 0
    assert not (tmp_path / "home2" / "modules" / "evaluate_modules" / "metrics" / "evaluate-metric--perseval").exists()
    register = run(fresh_python, "from persona_metrics import register; register()", tmp_path / "home2",
                   PERSONA_METRICS_NO_AUTO_REGISTER="1")  # fmt: skip
    assert register.returncode == 0, register.stderr
    proc = run(fresh_python, LOAD.format(prefix=""), tmp_path / "home2")
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("damage", ["truncate", "empty", "syntax", "delete_meta"])
def test_register_repairs_a_damaged_copy(tmp_path, monkeypatch, damage) -> None:
    from persona_metrics.integrations.registry import STALE_TMP_SECONDS, metric_script, register

    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path))
    (target,) = register(["perseval"])
    copy = target / "perseval.py"
    installed = metric_script("perseval").read_bytes()
    assert copy.read_bytes() == installed
    if damage == "truncate":
        copy.write_bytes(installed[: len(installed) // 2])
    elif damage == "empty":
        copy.write_bytes(b"")
    elif damage == "syntax":
        copy.write_bytes(installed.replace(b"def _compute(", b"def _compute(((", 1))
    else:
        (target / "perseval.json").unlink()
    stale = target.parent / ".tmp-left-by-a-killed-run"
    stale.mkdir()
    os.utime(stale, (0, 0))  # older than STALE_TMP_SECONDS
    fresh = target.parent / ".tmp-another-run-now"
    fresh.mkdir()
    assert register(["perseval"]) == [target]
    assert copy.read_bytes() == installed
    assert (target / "perseval.json").is_file()
    assert (target / "__init__.py").is_file()
    assert not stale.exists()
    assert fresh.exists()  # a build younger than STALE_TMP_SECONDS may be running
    assert STALE_TMP_SECONDS >= 60
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".tmp-")] == [fresh.name]


_KILLED_REGISTER = """
import shutil, time
from persona_metrics.integrations import registry
real = shutil.copyfile
def slow(src, dst):  # the copy is half done: stop here until killed
    print("copying", flush=True)
    time.sleep(60)
    return real(src, dst)
registry.shutil.copyfile = slow
registry.register(["perseval"])
"""


def test_register_killed_mid_way_is_cleaned_up_by_the_next_one(tmp_path, monkeypatch) -> None:
    import signal

    from persona_metrics.integrations.registry import metric_script, register

    env = {**os.environ, "HF_MODULES_CACHE": str(tmp_path), "PERSONA_METRICS_NO_AUTO_REGISTER": "1"}
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_REGISTER], env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "copying"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    pkg = tmp_path / "evaluate_modules" / "metrics" / "evaluate-metric--perseval"
    (leftover,) = [p for p in pkg.iterdir() if p.name.startswith(".tmp-")]
    assert not [p for p in pkg.iterdir() if len(p.name) == 64]  # evaluate sees no half-written version
    os.utime(leftover, (0, 0))
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path))
    (target,) = register(["perseval"])
    assert (target / "perseval.py").read_bytes() == metric_script("perseval").read_bytes()
    assert not leftover.exists()
