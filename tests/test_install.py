"""A user's first steps: ``pip install .`` into a fresh virtual environment, ``import persona_metrics``, then
``evaluate.load("perseval")`` by bare name, offline, in new processes with their own Hugging Face home.

The fresh environment sees the dependencies of the test environment through a ``.pth`` line (installing them
again would need the network); persona-metrics itself is built from a copy of the source tree and installed as
a regular (non-editable) package, so the test also checks that the wheel carries the metric scripts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = ("src", "metrics", "data", "docs", "setup.cfg", "pyproject.toml", "README.md")
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
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
               "--no-build-isolation", "--no-index", str(source)]  # fmt: skip
    proc = subprocess.run(install, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return python


def user_env(home: Path, **extra: str) -> dict[str, str]:
    """A new user's environment: none of the session's HF_/PERSONA_METRICS_ settings, its own Hugging Face home,
    offline."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "PERSONA_METRICS_"))}
    environ.update(HF_HOME=str(home), HF_EVALUATE_OFFLINE="1", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", **extra)
    return environ


def run(python: Path, code: str, home: Path, **env: str) -> subprocess.CompletedProcess:
    home.mkdir(exist_ok=True)
    environ = user_env(home, **env)
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=environ, cwd=home, timeout=300)


@pytest.mark.multiprocess
def test_pip_install_then_import_makes_bare_name_load_work(fresh_python, tmp_path) -> None:
    where = run(fresh_python, "import persona_metrics; print(persona_metrics.__file__)", tmp_path)
    assert where.returncode == 0, where.stderr
    assert str(fresh_python.parents[1]) in where.stdout  # the installed copy, not the source tree
    # the wheel carries rougeL's stem table, and the installed nltk accepts it (no warning, no fallback)
    table = run(fresh_python, "import warnings; warnings.simplefilter('error'); from persona_metrics.distances."
                "fast_tokens import stem_table; print(len(stem_table()[0]))", tmp_path)  # fmt: skip
    assert table.returncode == 0, table.stderr[-3000:]
    assert table.stdout.strip() == "337100"
    # a fresh home: importing persona_metrics registers, then the bare name resolves offline
    proc = run(fresh_python, LOAD.format(prefix="import persona_metrics"), tmp_path / "home1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "1.0"
    # later processes need not import persona_metrics: the registration persists in the modules cache
    proc = run(fresh_python, LOAD.format(prefix=""), tmp_path / "home1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "1.0"


def cli(python: Path, home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The installed ``persona-metrics`` console script, run in a new user's home (not the source tree)."""
    home.mkdir(exist_ok=True)
    command = [str(python.parent / "persona-metrics"), *args]
    return subprocess.run(
        command, input=stdin, capture_output=True, text=True, env=user_env(home), cwd=home, timeout=600
    )


@pytest.mark.multiprocess
def test_pip_user_commands_work_from_the_wheel(fresh_python, tmp_path) -> None:
    """issue 24 item 5: the CNN/DM sample is in the wheel, summary_eval and stdin work, docs are installed.

    Golden source: the same commands in the test environment (the source tree), whose output the installed script
    must print; and the installed file tree (the docs pointer must name a file inside the fresh venv).
    """
    home = tmp_path / "user"
    proc = cli(fresh_python, home, "cnndm", "-n", "4", "--bootstrap", "0", "-f", "json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads(proc.stdout)
    assert [(row["system"], row["n"]) for row in rows] == [("lead3", 4), ("random3", 4), ("reference", 4)]
    lines = [{"prediction": "Harbor Foods raised its outlook.", "source": "Harbor Foods raised its outlook on "
              "Tuesday. It also opened two stores."}, {"prediction": "", "source": "Rain fell all day."}]  # fmt: skip
    path = home / "pairs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    from_file = cli(fresh_python, home, "score", "summary_eval", str(path), "-f", "json")
    assert from_file.returncode == 0, from_file.stderr[-3000:]
    (row,) = json.loads(from_file.stdout)
    assert row["n"] == 2
    assert row["overall"] is None
    assert 0 <= row["completeness"] <= 1
    from_stdin = cli(fresh_python, home, "score", "summary_eval", "-", "-f", "json", stdin=path.read_text())
    assert from_stdin.returncode == 0, from_stdin.stderr[-3000:]
    assert {**json.loads(from_stdin.stdout)[0], "system": "pairs"} == row
    bad = cli(fresh_python, home, "score", "summary_eval", "-", stdin='{"prediction": "x"}\n')
    assert bad.returncode == 2
    assert bad.stderr.strip() == "persona-metrics score: error: <stdin>:1: missing keys ['source']"
    style = json.dumps({"prediction": "Shares rose 4% after the report.", "persona": "journalist"})
    quiet = cli(fresh_python, home, "score", "persona_style", "-", "-q", stdin=style)
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    assert 0 <= float(quiet.stdout) <= 1
    assert quiet.stdout.count("\n") == 1
    register = run(
        fresh_python,
        "from persona_metrics.persona.samples import shipped_register_texts as r\n"
        "print(sorted((k, len(v)) for k, v in r().items()))",
        home,
    )  # the posterior's training texts
    expected = "[('enthusiast', 32), ('formal_analyst', 32), ('journalist', 32)]"
    assert register.stdout.strip() == expected, register.stderr
    docs = cli(fresh_python, home, "docs", "scaling")
    assert docs.returncode == 0, docs.stderr
    installed = Path(docs.stdout.strip())
    assert installed.is_file()
    assert fresh_python.parents[1] in installed.parents
    assert "## 2. Sharded CLI" in installed.read_text(encoding="utf-8")
    assert "persona-metrics docs <topic>" in cli(fresh_python, home, "--help").stdout


@pytest.mark.multiprocess
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
import time
from persona_metrics.integrations import registry
real = registry._contents
def slow(*args):  # the build directory exists, the files are not written yet: stop here until killed
    print("copying", flush=True)
    time.sleep(60)
    return real(*args)
registry._contents = slow
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


# A user's process that loads by bare name without importing persona_metrics, in a loop, while another process
# registers. Each attempt is recorded with whether the test had already seen `register` return ("after").
_RACING_LOADER = """
import json, os, sys, time, warnings
import evaluate
warnings.simplefilter("ignore")
done, stop = sys.argv[1], sys.argv[2]
outcomes = []
print("ready", flush=True)
while not os.path.exists(stop):
    after = os.path.exists(done)
    try:
        evaluate.load("perseval")
        outcome = "ok"
    except FileNotFoundError as err:
        outcome = "absent" if "doesn't exist on the Hugging Face Hub" in str(err) else "other: " + repr(err)
    except Exception as err:
        outcome = "other: " + repr(err)
    outcomes.append([after, outcome])
    time.sleep(0.005)
print(json.dumps(outcomes))
"""

# `register` with every rename/replace stretched, so a load lands in each state the cache passes through.
_SLOW_REGISTER = """
import os, time
from persona_metrics.integrations import registry
def slowed(real):
    def call(*args, **kwargs):
        result = real(*args, **kwargs)
        time.sleep(0.4)
        return result
    return call
os.rename, os.replace = slowed(os.rename), slowed(os.replace)
registry.register(["perseval"])
"""


def test_a_load_racing_register_sees_nothing_or_a_whole_copy(tmp_path) -> None:
    """A load during ``register`` either finds no module yet (evaluate's documented "doesn't exist
    on the Hugging Face Hub" error, which the README and cards explain) or a complete copy; once a copy is visible
    it stays visible, also while ``register`` repairs a damaged copy (before: the damaged directory was renamed
    aside, so a load in that window failed with "doesn't exist" although the module had loaded a moment before);
    every load after ``register`` returned succeeds."""
    from persona_metrics.integrations.registry import metric_script

    cache, done, stop = tmp_path / "modules", tmp_path / "done", tmp_path / "stop"
    env = user_env(tmp_path / "home", HF_MODULES_CACHE=str(cache), PERSONA_METRICS_NO_AUTO_REGISTER="1")
    loader = subprocess.Popen([sys.executable, "-c", _RACING_LOADER, str(done), str(stop)], env=env, cwd=tmp_path,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert loader.stdout.readline().strip() == "ready"
        subprocess.run([sys.executable, "-c", _SLOW_REGISTER], env=env, check=True, timeout=120)  # first register
        (copy,) = cache.glob("evaluate_modules/metrics/evaluate-metric--perseval/*/perseval.py")
        copy.write_bytes(copy.read_bytes()[:100])  # damaged: the loader has the module imported already
        subprocess.run([sys.executable, "-c", _SLOW_REGISTER], env=env, check=True, timeout=120)  # repair
        assert copy.read_bytes() == metric_script("perseval").read_bytes()
        done.touch()
        time.sleep(1.0)
    finally:
        stop.touch()
        out, _ = loader.communicate(timeout=120)
    outcomes = json.loads(out.strip().splitlines()[-1])
    kinds = [outcome for _, outcome in outcomes]
    assert [k for k in kinds if k not in ("ok", "absent")] == []
    assert kinds[0] == "absent"  # the loader saw both states: the test can see a window
    assert "ok" in kinds
    first_ok = kinds.index("ok")
    assert "absent" not in kinds[first_ok:], "a registered copy disappeared while register ran"
    assert any(after for after, _ in outcomes)
    assert all(outcome == "ok" for after, outcome in outcomes if after)


_DESCRIPTION = """
import evaluate, warnings
warnings.simplefilter("ignore")
print(evaluate.load("perseval").description[:8])
"""


def test_a_repaired_copy_is_not_served_from_stale_bytecode(tmp_path, monkeypatch) -> None:
    """A same-size edit that still compiles, imported once (Python writes ``__pycache__`` keyed on the source's
    whole-second mtime and size), then repaired within the same second: the next process must run the installed
    code, not the edited bytecode (the in-place repair bumps the mtime and removes ``__pycache__``)."""
    from persona_metrics.integrations.registry import register

    cache = tmp_path / "modules"
    monkeypatch.setenv("HF_MODULES_CACHE", str(cache))
    env = user_env(tmp_path / "home", HF_MODULES_CACHE=str(cache), PERSONA_METRICS_NO_AUTO_REGISTER="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as on a user's machine: imports write __pycache__

    def description() -> str:
        proc = subprocess.run([sys.executable, "-c", _DESCRIPTION], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout.strip()

    (target,) = register(["perseval"])
    copy = target / "perseval.py"
    installed = copy.read_bytes()
    assert description() == "PerSEval"
    edited = installed.replace(b'"""\\\nPerSEval ', b'"""\\\nPerSEvaL ', 1)
    assert len(edited) == len(installed)
    assert edited != installed
    copy.write_bytes(edited)
    now = time.time()
    os.utime(copy, (now, now))
    shutil.rmtree(target / "__pycache__", ignore_errors=True)
    assert description() == "PerSEvaL"  # the edit is compiled into __pycache__
    assert list((target / "__pycache__").glob("perseval.*.pyc"))
    os.utime(copy, (now, now))
    with monkeypatch.context() as frozen:  # the repair within the same second as the edit (a fast machine)
        frozen.setattr(time, "time", lambda: now)
        register(["perseval"])
    assert copy.read_bytes() == installed
    assert description() == "PerSEval"
