"""scripts/install_llama_cpp.sh: a wheelhouse seed is used only when its key, BUILD_INFO and wheel check out.

The script runs for real, with a stand-in interpreter: ``-c`` and ``-m zipfile`` go to this Python, every ``pip``
call is logged and succeeds, except ``pip wheel`` (a build), which fails at once, so a test sees whether the script
copied the seed or went on to build.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "install_llama_cpp.sh"
VERSION = "0.3.36"
ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX2=ON"
WHEEL = f"llama_cpp_python-{VERSION}-py3-none-linux_x86_64.whl"


def _interp() -> str:
    import sysconfig

    return f"{sys.implementation.cache_tag} {sysconfig.get_platform()}"


def _key(args: str = ARGS) -> str:
    """The wheelhouse key as the script's header defines it: 12 hex digits of a SHA-256 over version, flags, interp."""
    text = f"llama-cpp-python=={VERSION}\nCMAKE_ARGS={args}\n{_interp()}\n"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@pytest.fixture
def stand_in(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "pip.log"
    py = tmp_path / "python"
    py.write_text(
        "#!/usr/bin/env bash\n"
        f'if [ "$1" = -c ] || [ "$2" = zipfile ]; then exec "{sys.executable}" "$@"; fi\n'
        f'echo "$*" >> "{log}"\n'
        'if [ "$3" = wheel ]; then echo "stand-in: no build here" >&2; exit 3; fi\n'
    )
    py.chmod(0o755)
    return py, log


def _seed(root: Path, *, info_args: str = ARGS, good_zip: bool = True) -> Path:
    house = root / f"llama-cpp-python-{VERSION}-{_key()}"
    house.mkdir(parents=True)
    if good_zip:
        with zipfile.ZipFile(house / WHEEL, "w") as wheel:
            wheel.writestr("llama_cpp/__init__.py", "")
    else:
        (house / WHEEL).write_bytes(b"not a zip file")
    (house / "BUILD_INFO").write_text(
        f"llama-cpp-python=={VERSION}\nCMAKE_ARGS={info_args}\ninterpreter={_interp()}\nbuilt=2026-01-01T00:00:00Z\n"
    )
    return root


def _run(py: Path, cache: Path, seed: Path | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LLAMA_CPP_VERSION": VERSION, "CMAKE_ARGS": ARGS, "PERSONA_METRICS_WHEELHOUSE": str(cache)}
    env.pop("PERSONA_METRICS_WHEELHOUSE_SEED", None)
    if seed is not None:
        env["PERSONA_METRICS_WHEELHOUSE_SEED"] = str(seed)
    return subprocess.run(
        ["bash", str(SCRIPT), str(py)], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_a_matching_seed_is_copied_and_nothing_is_built(tmp_path: Path, stand_in: tuple[Path, Path]) -> None:
    py, log = stand_in
    seed = _seed(tmp_path / "seed")
    done = _run(py, tmp_path / "cache", seed)
    assert done.returncode == 0, done.stderr
    house = tmp_path / "cache" / f"llama-cpp-python-{VERSION}-{_key()}"
    assert "copied from the seed" in done.stdout
    assert (house / WHEEL).read_bytes() == (seed / house.name / WHEEL).read_bytes()
    assert (house / "BUILD_INFO").is_file()
    calls = log.read_text().splitlines()
    assert not any(" wheel " in f" {c} " for c in calls)
    assert any("--no-index" in c and str(house) in c for c in calls)  # installed from the copied wheelhouse
    again = _run(py, tmp_path / "cache", None)  # the copy is now the user's own wheelhouse
    assert again.returncode == 0, again.stderr
    assert "reusing the wheel" in again.stdout


@pytest.mark.parametrize(
    ("seed_kind", "message"),
    [
        ("other flags", "lacks 'CMAKE_ARGS="),
        ("not a zip", "fails a zip check"),
        ("no wheelhouse of this key", "has no wheelhouse of key"),
        ("no seed", "building the wheel once"),
    ],
)
def test_anything_else_is_built(tmp_path: Path, stand_in: tuple[Path, Path], seed_kind: str, message: str) -> None:
    """A seed that does not check out is not copied: the script says why and builds (the stand-in refuses)."""
    py, log = stand_in
    seed: Path | None = tmp_path / "seed"
    if seed_kind == "other flags":
        _seed(seed, info_args="-march=native")
    elif seed_kind == "not a zip":
        _seed(seed, good_zip=False)
    elif seed_kind == "no wheelhouse of this key":
        seed.mkdir()
    else:
        seed = None
    done = _run(py, tmp_path / "cache", seed)
    assert message in done.stdout
    assert done.returncode != 0  # the stand-in's pip wheel failed: a build was attempted
    assert any(" wheel " in f" {c} " for c in log.read_text().splitlines())
    assert not (tmp_path / "cache" / f"llama-cpp-python-{VERSION}-{_key()}").exists()  # nothing half-made
