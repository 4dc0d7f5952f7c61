"""The Gradio Spaces: each app served on 127.0.0.1, called through gradio_client and driven in headless Chromium.

Golden values: the library functions called directly (``score_style``, ``score_quality``,
``score_personalization``, ``score_vert``),
an independent path from the app → evaluate module → library chain under test.
"""

from __future__ import annotations

import configparser
import importlib.metadata
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest
import yaml
from conftest import load_script
from packaging.requirements import Requirement
from packaging.version import Version

from persona_metrics import METRICS
from persona_metrics.app_support import (
    PERSONALIZATION_COLUMNS,
    PERSONALIZATION_EXAMPLE,
    formatted_table,
    personalization_figure,
    table_columns,
)
from persona_metrics.formatting import format_score
from persona_metrics.persona.quality import score_quality
from persona_metrics.persona.style import score_style, style_band
from persona_metrics.personalization import score_personalization
from persona_metrics.summary_eval import score_summary_eval
from persona_metrics.vert import score_vert

gradio_client = pytest.importorskip("gradio_client", reason="the spaces extra (gradio) is not installed")

ROOT = Path(__file__).resolve().parents[1]
SPACES = ROOT / "spaces"
ARTIFACTS = Path(os.environ.get("PERSONA_METRICS_TEST_ARTIFACTS", ROOT / "test-artifacts"))
CHROMIUM = os.environ.get("PERSONA_METRICS_CHROMIUM", "/usr/bin/chromium")
# The flags the machine's notes give for Chromium on a closed network (no background connections, no sandbox as root).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# The options each app's score endpoint takes after the table, at their defaults in the UI.
OPTIONS = {
    "persona_style": ("formal_analyst", "jsd"),
    "persona_quality": ("journalist", 0.7, 0.4, "jsd"),
    "degress": ("rougeL", 0.5, 1.0),
    "perseval": ("rougeL", 1.7, 3.0, 4.0),
    "vert": ("wordllama", 5.0, False),
    "summary_eval": ("none", "", "", "accuracy", "original"),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def import_app(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"space_app_{name}", SPACES / name / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", params=METRICS)
def served(request):
    """(name, app module, URL) of one Space app launched on 127.0.0.1."""
    name = request.param
    app = import_app(name)
    port = free_port()
    app.demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    yield name, app, f"http://127.0.0.1:{port}/"
    app.demo.close()


def example_columns(name: str, app: ModuleType) -> dict[str, list[str]]:
    if name in ("degress", "perseval"):
        return table_columns(
            pd.DataFrame(PERSONALIZATION_EXAMPLE, columns=PERSONALIZATION_COLUMNS), PERSONALIZATION_COLUMNS
        )
    return table_columns(pd.DataFrame(app.EXAMPLE, columns=app.COLUMNS), app.COLUMNS)


def library_numbers(name: str, cols: dict[str, list[str]], options: tuple) -> dict[str, float]:
    """The headline numbers straight from the library (the independent source)."""
    if name == "persona_style":
        result = score_style(cols["prediction"], [options[0]] * len(cols["prediction"]), method=options[1])
        return {"style_similarity": result.mean}
    if name == "persona_quality":
        persona, content, rouge, style_method = options
        result = score_quality(
            cols["prediction"],
            cols["reference"],
            [persona] * len(cols["prediction"]),
            overall_weights={"content": content, "style": 1 - content},
            content_weights={"rougeLsum": rouge, "bertscore": 1 - rouge},
            style_method=style_method,
        )
        return result.means()
    if name == "vert":
        encoder, alpha, meaning_sensitive = options
        return score_vert(
            cols["prediction"], cols["reference"], encoder=encoder, alpha=alpha, meaning_sensitive=meaning_sensitive
        ).means()
    if name == "summary_eval":
        means = score_summary_eval(cols["summary"], cols["source"], coherence_method=options[4]).means()
        return {"completeness": means["completeness"], "coherence": means["coherence"]}
    args = (cols["prediction"], cols["reference"], cols["document"])
    if name == "degress":
        result = score_personalization(*args, distance=options[0], p_acc_alpha=options[1], p_acc_beta=options[2])
        return {k: getattr(result, k) for k in ("degress", "egises", "p_accuracy", "accuracy_distance")}
    result = score_personalization(*args, distance=options[0], beta=options[1], alpha=options[2], gamma=options[3])
    return {k: getattr(result, k) for k in ("perseval", "degress", "egises", "edp", "accuracy_distance")}


def api_table(name: str, app: ModuleType) -> dict:
    if name in ("degress", "perseval"):
        return {"headers": PERSONALIZATION_COLUMNS, "data": PERSONALIZATION_EXAMPLE}
    return {"headers": app.COLUMNS, "data": app.EXAMPLE}


# --- input tables (no server) ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("table", "allow_blank", "expected"),
    [
        ({"headers": ["a", "b"], "data": [["x", " y "]]}, (), {"a": ["x"], "b": ["y"]}),  # API form, stripped
        (pd.DataFrame([["x", "y"], [None, float("nan")], ["", "z"]], columns=["a", "b"]), ("a",),
         {"a": ["x", ""], "b": ["y", "z"]}),  # a blank row is skipped; a blank allowed cell is ""
        (pd.DataFrame([["y", "x", "extra"]], columns=["b", "a", "c"]), (), {"a": ["x"], "b": ["y"]}),  # by name
    ],
)  # fmt: skip
def test_table_columns(table, allow_blank, expected):
    assert table_columns(table, ["a", "b"], allow_blank=allow_blank) == expected


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"headers": ["a"], "data": [["x"]]}, r"missing \['b'\]"),
        ({"headers": ["a", "b"], "data": [["x", "y"], ["x", " "]]}, "row 2: the 'b' cell is empty"),
        ({"headers": ["a", "b"], "data": []}, "the input table is empty"),
    ],
)
def test_table_columns_errors(table, message):
    with pytest.raises(ValueError, match=message):
        table_columns(table, ["a", "b"])


def test_formatted_table_shows_every_score_in_the_one_format():
    """A per-document PerSEval of 4e-05 must not read as 0 (the old round(v, 4))."""
    table = pd.DataFrame({"doc": ["D1", "D2", "D3"], "perseval": [4e-05, 0.99899, 0.0], "note": ["", "x", "y"]})
    shown = formatted_table(table)
    assert list(shown["perseval"]) == ["4e-05", "0.999", "0"]
    assert list(shown["doc"]) == ["D1", "D2", "D3"]
    assert list(shown["note"]) == ["", "x", "y"]
    assert list(table["perseval"]) == [4e-05, 0.99899, 0.0]  # the input is not changed


def test_perseval_chart_is_on_a_log_scale():
    """PerSEval of two documents can differ by five orders of magnitude: on a linear axis the small one has no bar."""
    app = import_app("perseval")
    breakdown = pd.DataFrame(
        {"doc": ["D1", "D2", "D3"], "degress": [0.4, 0.3, "excluded"], "perseval": [0.2, 2e-6, "excluded"]}
    )
    figure = personalization_figure(breakdown, ("degress", "perseval"), log=True)
    assert figure.axes[0].get_xscale() == "log"
    assert "log scale" in figure.axes[0].get_xlabel()
    assert personalization_figure(breakdown, ("degress",)).axes[0].get_xscale() == "linear"  # DEGRESS: 0-1 bars
    example = pd.DataFrame(PERSONALIZATION_EXAMPLE, columns=PERSONALIZATION_COLUMNS)
    *_, drawn = app.score(example, *OPTIONS["perseval"])  # the Space's own chart of its example
    assert drawn.axes[0].get_xscale() == "log"


# --- gradio_client ----------------------------------------------------------------------------------------
def test_score_endpoint_returns_the_library_numbers(served):
    name, app, url = served
    client = gradio_client.Client(url, verbose=False)
    numbers, text, breakdown, _figure = client.predict(api_table(name, app), *OPTIONS[name], api_name="/score")
    expected = library_numbers(name, example_columns(name, app), OPTIONS[name])
    assert {k: numbers[k] for k in expected} == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert all(isinstance(v, float | int) for k, v in numbers.items() if k != "scores"), numbers
    n_rows = 3 if name in ("degress", "perseval") else len(app.EXAMPLE)  # 3 documents / one row per summary
    assert len(breakdown["data"]) == n_rows
    assert text.startswith("### ")


def test_the_example_is_meaningful(served):
    """The prefilled example shows what the metric is for."""
    name, app, url = served
    client = gradio_client.Client(url, verbose=False)
    _numbers, _text, breakdown, _ = client.predict(api_table(name, app), *OPTIONS[name], api_name="/score")
    rows = pd.DataFrame(breakdown["data"], columns=breakdown["headers"])
    for column in ("overall_quality", "VERT", "sim", "WMD", "completeness", "degress"):  # shown as format_score text
        if column in rows:
            rows[column] = rows[column].astype(float)
    if name == "persona_style":  # each summary is nearest to the persona it was written as
        assert list(rows["nearest_persona"]) == ["formal_analyst", "journalist", "enthusiast"]
    elif name == "persona_quality":  # the accurate journalist-style summary ranks first, the hype last
        assert list(rows["overall_quality"]) == sorted(rows["overall_quality"], reverse=True)
    elif name == "vert":  # the authors' examples: identical first, acceptable above wrong; unrelated last
        vert = list(rows["VERT"])
        assert vert[2] == max(vert) >= 0.99
        assert vert[0] > vert[1]
        assert rows["sim"].iloc[0] > rows["sim"].iloc[1]
        assert rows["WMD"].iloc[1] > rows["WMD"].iloc[0]
        assert vert[4] == min(vert)
    elif name == "summary_eval":  # the good summary covers the most topics; the off-topic one none
        completeness = list(rows["completeness"])
        assert completeness[0] == max(completeness[:3])
        # rows 4 and 5 repeat and shuffle the good one: the original ranks the repeat and the off-topic line above
        # it, the robust method ranks the good summary first (docs/summary_eval.md §3.1)
        original, robust = rows["coherence (original)"].astype(float), rows["coherence (robust)"].astype(float)
        assert original.iloc[3] > original.iloc[0]
        assert original.iloc[2] > original.iloc[0]
        assert robust.iloc[0] == robust.max()
        assert completeness[2] == 0.0
        assert list(rows["accuracy"]) == [""] * len(rows)  # no judge: no accuracy, not a silent 0
    else:  # the third document got one generic summary for every reader: DEGRESS ≈ 1e-5 · mean(1/X) there
        assert 0.0 < rows["degress"].iloc[2] < 1e-3  # docs/perseval.md §7.3; shown as 2.26e-05, not as 0
        assert rows["degress"].iloc[0] > 0.0
        assert rows["degress"].iloc[1] > 0.0


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"headers": ["wrong"], "data": [["x"]]}, "missing"),
        ("empty", "the input table is empty"),
    ],
)
def test_bad_input_is_a_readable_error(served, table, message):
    name, app, url = served
    client = gradio_client.Client(url, verbose=False)
    if table == "empty":
        headers = api_table(name, app)["headers"]
        table = {"headers": headers, "data": [[""] * len(headers)]}
    with pytest.raises(gradio_client.exceptions.AppError, match=message) as info:
        client.predict(table, *OPTIONS[name], api_name="/score")
    assert "Traceback" not in str(info.value)


def test_an_option_outside_the_dropdown_is_refused(served):
    """A persona / distance the dropdown does not offer: the API refuses it, naming the allowed values."""
    name, app, url = served
    client = gradio_client.Client(url, verbose=False)
    defaults = {"degress": "rougeL", "perseval": "rougeL", "vert": "wordllama", "summary_eval": "none"}
    allowed = defaults.get(name, "formal_analyst")
    with pytest.raises(gradio_client.exceptions.AppError, match=allowed):
        client.predict(api_table(name, app), "no-such-choice", *OPTIONS[name][1:], api_name="/score")


# --- headless Chromium --------------------------------------------------------------------------------------
# Per app: the cell edited (row, column, new text) and what the edit must change in the rendered result.
EDITS = {
    "persona_style": (2, 0, "Northgate Bank said on Thursday that quarterly profit rose 6%. Its shares fell 2%."),
    "persona_quality": (2, 0, "Harbor Foods raised its annual sales forecast on Tuesday after a strong summer."),
    "degress": (7, 3, "Coastal Air's new jets cut emissions per seat by a fifth"),
    "perseval": (7, 3, "Coastal Air's new jets cut emissions per seat by a fifth"),
    "vert": (1, 0, "Endeavour astronauts attach two segments of International Space Station"),
    "summary_eval": (1, 0, "Brightwater Foods grew revenue 8 percent and will open a plant in Ohio."),
}


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.fail(
            f"{CHROMIUM} not found: install Debian's chromium (`make browser-deps`) or set PERSONA_METRICS_CHROMIUM"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def cell(page, component: str, row: int, col: int):
    return page.locator(f"#{component} [data-testid='cell-{row}-{col}']")


def edit_cell(page, target, text: str) -> None:
    """Double-click a cell, wait for its editor, replace the content with ``text`` and press Enter.

    Waiting for the editor matters: keys pressed before the cell is in edit mode go elsewhere (a flaky edit that
    kept the old text behind the new one).
    """
    target.dblclick()
    editor = target.locator("textarea, input").first
    editor.wait_for(state="visible", timeout=10_000)
    editor.fill(text)
    page.keyboard.press("Enter")


def cell_text(page, component: str, row: int, col: int) -> str:
    """The text shown in a table cell (without the cell's menu button)."""
    return cell(page, component, row, col).locator("span[data-editable]").first.inner_text().strip()


@pytest.mark.browser
def test_edit_a_cell_and_compute_in_a_browser(served, browser):
    name, app, url = served
    row, col, text = EDITS[name]
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    try:
        page.goto(url, wait_until="networkidle")
        target = cell(page, "inputs", row, col)
        target.scroll_into_view_if_needed()
        edit_cell(page, target, text)
        assert cell_text(page, "inputs", row, col) == text
        page.get_by_role("button", name="Compute").click()
        page.wait_for_selector("#result h3", timeout=120_000)
        rendered = page.locator("#result").inner_text()

        cols = example_columns(name, app)
        cols[list(cols)[col]][row] = text
        expected = library_numbers(name, cols, OPTIONS[name])
        headline = next(iter(expected))
        assert format_score(expected[headline]) in rendered, rendered

        breakdown = page.locator("#breakdown")
        if name == "persona_style":  # the edited, journalist-like summary: its score and nearest persona
            scores = score_style(cols["prediction"], ["formal_analyst"] * 3).scores
            assert cell_text(page, "breakdown", 2, 1) == format_score(scores[2])
            assert cell_text(page, "breakdown", 2, 3) == "journalist"
            assert style_band(expected["style_similarity"]) in rendered
        elif name == "persona_quality":
            assert breakdown.get_by_text("Excellent").count() >= 1
            assert cell_text(page, "breakdown", 2, 0).startswith("Harbor Foods raised its annual")
        elif name == "vert":  # the edited pair: its own VERT, next to the library's
            per_item = score_vert(cols["prediction"], cols["reference"]).vert
            assert cell_text(page, "breakdown", 1, 1).startswith("Endeavour astronauts attach")
            assert cell_text(page, "breakdown", 1, 5) == format_score(per_item[1])
        elif name == "summary_eval":  # the edited summary: its own completeness, next to the library's
            per_row = score_summary_eval(cols["summary"], cols["source"]).completeness
            assert cell_text(page, "breakdown", 1, 1).startswith("Brightwater Foods grew")
            assert cell_text(page, "breakdown", 1, 2) == format_score(per_row[1])
        else:  # the edited reader now gets a summary of their own: the third document's DEGRESS is above 0
            assert cell_text(page, "breakdown", 2, 0) == "D3"
            assert float(cell_text(page, "breakdown", 2, 3)) > 0.01  # no longer the ≈ 2e-5 of one generic summary
        page.locator("#breakdown").scroll_into_view_if_needed()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"space_{name}.png"), full_page=True)
    finally:
        page.close()


# Per app: a cell made invalid (row, column, text) and the message the UI must show.
BAD_EDITS = {
    "persona_style": (0, 0, "!!!", "predictions[0]"),  # no words: style is undefined
    "persona_quality": (0, 1, "", "row 1: the 'reference' cell is empty"),
    "degress": (0, 2, "", "row 1: the 'reference' cell is empty"),
    "perseval": (0, 2, "", "row 1: the 'reference' cell is empty"),
    "vert": (0, 1, "", "row 1: the 'reference' cell is empty"),
    "summary_eval": (0, 1, "", "row 1: the 'source' cell is empty"),
}


@pytest.mark.browser
def test_bad_input_shows_a_readable_error_in_the_browser(served, browser):
    name, _app, url = served
    row, col, text, message = BAD_EDITS[name]
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    try:
        page.goto(url, wait_until="networkidle")
        edit_cell(page, cell(page, "inputs", row, col), text)
        page.get_by_role("button", name="Compute").click()
        toast = page.get_by_test_id("toast-text").filter(has_text=message)
        toast.wait_for(timeout=60_000)
        assert "Traceback" not in page.content()
        assert page.locator("#result h3").count() == 0  # no partial result
        page.wait_for_timeout(1000)  # the toast's fade-in, for the screenshot
        assert toast.is_visible()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"space_{name}_error.png"))
    finally:
        page.close()


# --- the built, self-contained Space ------------------------------------------------------------------------
def test_built_space_runs_from_its_own_folder(tmp_path):
    """``scripts/build_spaces.py`` output: the app runs from the folder alone, with the vendored library."""
    out = tmp_path / "spaces"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build_spaces.py"), str(out)], check=True)
    for name in METRICS:
        folder = out / name
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            [
                "README.md",
                "app.py",
                f"{name}.py",
                "persona_metrics",
                "persona_metrics-0.1.0.dist-info",
                "requirements.txt",
            ]
        )
        assert not any(p.is_symlink() for p in folder.rglob("*"))
        assert (folder / "README.md").read_text().startswith("---\ntitle: ")
        requirements = (folder / "requirements.txt").read_text().split()
        assert "evaluate==0.4.6" in requirements
        assert not any(r.startswith("gradio") for r in requirements)
    port = free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port), "PYTHONPATH": ""}
    folder = out / "persona_style"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import persona_metrics, runpy; print(persona_metrics.__file__, flush=True); "
         "runpy.run_path('app.py', run_name='__main__')"],
        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        first_line = proc.stdout.readline()
        assert Path(first_line.strip()).resolve().is_relative_to(folder.resolve()), first_line
        client = None
        deadline = time.monotonic() + 120
        while client is None:
            try:
                client = gradio_client.Client(f"http://127.0.0.1:{port}/", verbose=False)
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.5)
        app = import_app("persona_style")
        numbers, *_ = client.predict(api_table("persona_style", app), *OPTIONS["persona_style"], api_name="/score")
        expected = library_numbers("persona_style", example_columns("persona_style", app), OPTIONS["persona_style"])
        assert numbers["style_similarity"] == pytest.approx(expected["style_similarity"], rel=1e-12)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(out, ignore_errors=True)


# --- the Space configuration: card YAML headers and pinned requirements ---------------------------------------
# Every key the Hub's "Spaces Configuration Reference" documents (hub-docs, docs/hub/spaces-config-reference.md),
# with its type; plus the repository card's `license`. Not `description`: the Hub ignores it (evaluate's own module
# cards carry one); the Space shows `short_description` (at most 60 characters) and the card's body the long text.
SPACE_CONFIG_KEYS: dict[str, type | tuple[type, ...]] = {
    "title": str,
    "emoji": str,
    "colorFrom": str,
    "colorTo": str,
    "sdk": str,
    "python_version": str,
    "sdk_version": str,
    "suggested_hardware": str,
    "suggested_storage": str,
    "app_file": str,
    "app_build_command": str,
    "app_port": int,
    "base_path": str,
    "fullWidth": bool,
    "header": str,
    "short_description": str,
    "models": list,
    "datasets": list,
    "tags": list,
    "thumbnail": str,
    "pinned": bool,
    "hf_oauth": bool,
    "hf_oauth_scopes": list,
    "hf_oauth_expiration_minutes": int,
    "hf_oauth_authorized_org": (str, list),
    "disable_embedding": bool,
    "startup_duration_timeout": str,
    "custom_headers": dict,
    "preload_from_hub": list,
    "license": str,  # repository card metadata, shown on the Space page
}
REQUIRED_KEYS = {"title", "emoji", "colorFrom", "colorTo", "sdk", "sdk_version", "python_version", "app_file",
                 "pinned", "license", "tags", "short_description"}  # fmt: skip
#: The Hub's limit on ``short_description`` (the Spaces configuration reference: "max 60 characters").
SHORT_DESCRIPTION_MAX = 60
HUB_COLORS = {"red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray"}
HUB_SDKS = {"gradio", "streamlit", "docker", "static"}
TORCH_INDEX_LINE = "--extra-index-url https://download.pytorch.org/whl/cpu"


def card_header(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), f"{path}: no YAML header"
    header = yaml.safe_load(text.split("\n---\n", 1)[0].removeprefix("---\n"))
    assert isinstance(header, dict), path
    return header


def setup_cfg() -> configparser.ConfigParser:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return config


def requirement_lines(path: Path) -> list[str]:
    return [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]


@pytest.fixture(scope="module")
def built_spaces(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("built") / "spaces"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build_spaces.py"), str(out)], check=True)
    return out


@pytest.mark.parametrize("name", METRICS)
def test_card_header_is_a_valid_space_config(name, built_spaces):
    header = card_header(ROOT / "metrics" / name / "README.md")
    unknown = set(header) - set(SPACE_CONFIG_KEYS)
    assert not unknown, f"{name}: keys the Hub's Space configuration does not know: {unknown}"
    assert not REQUIRED_KEYS - set(header), f"{name}: missing {REQUIRED_KEYS - set(header)}"
    for key, value in header.items():
        assert isinstance(value, SPACE_CONFIG_KEYS[key]), f"{name}: {key} = {value!r} is not {SPACE_CONFIG_KEYS[key]}"
    assert header["title"].strip()
    assert header["emoji"].strip()
    assert not re.search(r"[A-Za-z0-9]", header["emoji"]), header["emoji"]  # emoji only
    assert header["colorFrom"] in HUB_COLORS
    assert header["colorTo"] in HUB_COLORS
    assert header["sdk"] in HUB_SDKS
    assert header["sdk"] == "gradio"
    # The Space runs what was tested here: gradio from sdk_version, the interpreter from python_version.
    assert header["sdk_version"] == importlib.metadata.version("gradio")
    assert re.fullmatch(r"3\.\d+(\.\d+)?", header["python_version"]), header["python_version"]
    assert header["python_version"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert Version(header["python_version"]) >= Version(setup_cfg()["options"]["python_requires"].removeprefix(">="))
    assert (built_spaces / name / header["app_file"]).is_file()
    assert header["license"] == setup_cfg()["metadata"]["license"].lower()
    assert all(isinstance(t, str) for t in header["tags"])
    assert {"evaluate", "metric"} <= set(header["tags"])
    assert 0 < len(header["short_description"].strip()) <= SHORT_DESCRIPTION_MAX, header["short_description"]
    # the built folder carries the card unchanged
    assert (built_spaces / name / "README.md").read_text() == (ROOT / "metrics" / name / "README.md").read_text()


@pytest.mark.parametrize("name", METRICS)
def test_space_header_has_only_space_keys_and_a_short_description(name):
    """The Space's own ``README.md`` (spaces/<name>/, as pushed): only keys the Hub's Spaces configuration knows
    (no ``description``), a ``short_description`` of at most 60 characters, and the long description kept in the
    card's body, under its title, where the Space shows it."""
    path = SPACES / name / "README.md"
    header = card_header(path)
    unknown = set(header) - set(SPACE_CONFIG_KEYS)
    assert not unknown, f"{path}: keys the Hub's Space configuration does not know: {sorted(unknown)}"
    short = header.get("short_description")
    assert isinstance(short, str), f"{path}: no short_description"
    assert 0 < len(short.strip()) <= SHORT_DESCRIPTION_MAX, f"{path}: short_description has {len(short)} characters"
    body = path.read_text(encoding="utf-8").split("\n---\n", 1)[1]
    lead = body.split("\n## ", 1)[0].split("\n", 3)[-1]  # the text between the title and the first section
    assert len(lead.split()) >= 12, f"{path}: no description paragraph under the title"


@pytest.mark.parametrize("name", METRICS)
def test_built_requirements_pin_this_environment(name, built_spaces):
    """Every requirement is ``name==version`` with the version installed here; torch, where the Space's extras
    need it, from the CPU wheel index."""
    lines = requirement_lines(built_spaces / name / "requirements.txt")
    index = lines[:1] if lines[0] == TORCH_INDEX_LINE else []
    assert not [ln for ln in lines[len(index) :] if ln.startswith("-")], "one option line only: the CPU index"
    pins = {}
    for line in lines[len(index) :]:
        requirement = Requirement(line)
        (spec,) = requirement.specifier
        assert spec.operator == "==", line
        installed = Version(importlib.metadata.version(requirement.name))
        assert Version(spec.version) == Version(installed.public), f"{line}: {installed} is installed"
        pins[requirement.name.lower()] = spec.version
    assert bool(index) == ("torch" in pins)  # the index line exactly when torch is installed
    assert "+" not in pins.get("torch", "")  # the CPU build comes from the index; a +cpu pin fails without it
    own = requirement_lines(SPACES / name / "requirements.txt")
    (library,) = [Requirement(ln) for ln in own if Requirement(ln).name == "persona-metrics"]
    config = setup_cfg()
    sections = [config["options"]["install_requires"], *(config["options.extras_require"][e] for e in library.extras)]
    declared = own + [ln.strip() for text in sections for ln in text.splitlines() if ln.strip()]  # extras as named
    expected = {Requirement(ln).name.lower() for ln in declared} - {"persona-metrics"}
    assert set(pins) == expected
    assert "gradio" not in pins  # from the card's sdk_version


def test_build_fails_clearly_on_a_requirement_that_is_not_installed():
    build = load_script("build_spaces")
    assert build.installed_pin("torch>=2.2,<3") == f"torch=={Version(importlib.metadata.version('torch')).public}"
    with pytest.raises(build.RequirementNotInstalled, match=r"'no-such-dist-xyz' .* is not installed"):
        build.installed_pin("no-such-dist-xyz>=1")
    with pytest.raises(build.RequirementNotInstalled, match="outside the requirement"):
        build.installed_pin("evaluate<0.1")
