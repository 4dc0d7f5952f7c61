"""The judge's results file (``persona-metrics cnndm --out F``): only lines that pass their check are reused.

Every line of the file ends with a ``check`` over its text (BLAKE2b, 16 hex digits; not over its number: a resumed
run appends). A rerun with the same ``--out`` reuses the answers of the lines that pass it; a line edited by hand
(its accuracy, its raw answer), cut short by a killed run, written without a check (by an older version) or whose
score is not its raw answer's is not reused: its item is judged again by the real judge server
(``tests/judge_server.py``), one warning names the line (``FILE:LINE``) and why, and the run ends with the numbers
of a clean run.

One clean ``cnndm`` run (a module fixture) writes the file every test starts from (a copy, edited). One test reruns
the command end to end on an edited and cut copy; the others read their edited copy back as the command does
(``ResultsLog.answers``, then a ``Judge`` with those ``known_answers`` pointed at the same server, over the pairs the
command judged): which lines are reused, which items are asked again, the warning, and the clean run's verdicts.
"""

from __future__ import annotations

import hashlib
import io
import json
import warnings
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from judge_server import JudgeServer, serve

from persona_metrics.cli import build_parser, main
from persona_metrics.warning import PersonaMetricsWarning

#: A small cnndm run with the judge: 3 systems x 2 articles (6 judged items: more than the 5 lines a warning names),
#: no intervals, JSON out, no answer cache (the results file is then the only thing a rerun can reuse).
ARGS = ["cnndm", "-n", "2", "--bootstrap", "0", "-f", "json", "-m", "test-judge", "--no-cache"]
ITEMS = 6
CHECK = ', "check": "'
#: The fields of a results line that a verdict sets (``cached`` aside: a reused answer is not asked for).
VERDICT_FIELDS = ("key", "status", "accuracy", "score", "rationale", "answer")


def check_of(body: str) -> str:
    """The check of a results-file line whose JSON text without the field is ``body``, computed as documented."""
    return hashlib.blake2b(body.encode("ascii"), digest_size=8).hexdigest()


def sealed(row: dict) -> str:
    """``row`` as a results-file line with a valid check (as a forger who recomputes it would write it)."""
    body = json.dumps(row)
    return f'{body[:-1]}{CHECK}{check_of(body)}"}}'


def intact(line: str) -> bool:
    """The line ends with the check its text gives."""
    head, sep, tail = line.rpartition(CHECK)
    return bool(sep) and tail == f'{check_of(head + "}")}"}}'


def run_cnndm(server: JudgeServer, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list, list[str], list]:
    """Run ``cnndm --out out`` against ``server``: its JSON rows, the digests it asked for and its warnings."""
    before = len(server.requests)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main([*ARGS, "--base-url", server.url, "--out", str(out)]) == 0
    rows = json.loads(capsys.readouterr().out)
    asked = [r["digest"] for r in server.requests[before:]]
    return rows, asked, [str(w.message) for w in caught if issubclass(w.category, PersonaMetricsWarning)]


def judge_again(server: JudgeServer, out: Path, pairs: list[tuple[str, str]]) -> tuple[list, list[str], list]:
    """What a rerun with ``--out out`` does for the judge, at the library level: ``ResultsLog(out).answers()`` as
    the judge's ``known_answers``, then every pair the command judged (one per line of the clean file) judged by a
    ``Judge`` on ``server``. Its verdicts, the digests it asked for and the warnings."""
    from persona_metrics.summary_eval.judge import Judge
    from persona_metrics.summary_eval.results_log import ResultsLog

    before = len(server.requests)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        judge = Judge("test-judge", base_url=server.url, api_key="none", known_answers=ResultsLog(out).answers())
        verdicts = judge.judge_many([summary for summary, _ in pairs], [source for _, source in pairs])
    asked = [r["digest"] for r in server.requests[before:]]
    return verdicts, asked, [str(w.message) for w in caught if issubclass(w.category, PersonaMetricsWarning)]


def as_judged(verdicts: list, lines: list[str]) -> None:
    """Each verdict is the clean run's verdict of its line (key, status, scores, rationale and raw answer)."""
    assert len(verdicts) == len(lines)
    for verdict, line in zip(verdicts, lines, strict=True):
        clean = json.loads(line)
        assert {f: verdict.record()[f] for f in VERDICT_FIELDS} == {f: clean[f] for f in VERDICT_FIELDS}


def digest_of(row: dict) -> str:
    """The server's digest of the request a results row answers (its answer's rationale is ``judged <digest>``)."""
    return json.loads(row["answer"]["content"])["rationale"].split()[1]


def results_warning(messages: list[str], out: Path) -> str:
    """The one warning about the results file's ignored lines."""
    found = [m for m in messages if m.startswith(f"{out}: ") and "not reused" in m]
    assert len(found) == 1, messages
    return found[0]


def verdicts(path: Path) -> set[tuple]:
    """(system, item, key, score) of every intact line of a results file."""
    lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line and intact(line)]
    return {(r["system"], r["item"], r["key"], r["score"]) for r in map(json.loads, lines)}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    """A judge server and a clean run's JSON rows and results file (its lines, and the lines with a unique key), and
    the (summary, article) pair each line judged, from the command's own benchmark."""
    from persona_metrics.commands.cnndm import load_systems

    clean = tmp_path_factory.mktemp("clean") / "clean.jsonl"
    with pytest.MonkeyPatch.context() as monkeypatch, serve() as server:
        monkeypatch.setenv("PERSONA_METRICS_CACHE", str(clean.parent / "cache"))
        with redirect_stdout(io.StringIO()) as printed, warnings.catch_warnings():
            warnings.simplefilter("ignore", PersonaMetricsWarning)  # the judge has not passed judge-check
            assert main([*ARGS, "--base-url", server.url, "--out", str(clean)]) == 0
        lines = clean.read_text(encoding="utf-8").splitlines()
        assert len(lines) == len(server.requests) == ITEMS  # one line per judged item, each asked once
        keys = [json.loads(line)["key"] for line in lines]
        unique = [i for i, key in enumerate(keys) if keys.count(key) == 1]
        assert len(unique) >= 3
        bench = load_systems(build_parser().parse_args([*ARGS, "--base-url", server.url]))
        rows = [json.loads(line) for line in lines]
        pairs = [(bench.systems[r["system"]][r["item"]], bench.articles[r["item"]]) for r in rows]
        yield server, json.loads(printed.getvalue()), clean, lines, unique, pairs


def test_an_edited_accuracy_and_a_cut_line_are_judged_again(judged, tmp_path: Path, capsys) -> None:
    """Edit one line's accuracy (its check left as it was), cut the last line, rerun the command: both items are
    asked again, one warning names both lines, the numbers are the clean run's; read back again, the file answers
    every item (the appended lines pass), so a third run would ask nothing."""
    server, clean_rows, clean, lines, unique, pairs = judged
    edited_at = unique[0]
    row = json.loads(lines[edited_at])
    row["accuracy"] = 1.0 if row["accuracy"] != 1.0 else 0.0  # a hand edit: the check stays as it was
    damaged = [*lines]
    damaged[edited_at] = json.dumps(row)
    out = tmp_path / "resumed.jsonl"
    out.write_text("\n".join(damaged)[: -len(lines[-1]) // 2], encoding="utf-8")  # the last line cut, no newline
    expected = {digest_of(json.loads(lines[edited_at])), digest_of(json.loads(lines[-1]))}

    rows, asked, messages = run_cnndm(server, out, capsys)
    assert sorted(asked) == sorted(expected)  # the edited item and the cut one, nothing else
    assert rows == clean_rows  # the numbers, counts and signatures of the clean run
    warning = results_warning(messages, out)
    assert f"{out}:{edited_at + 1}: skipping a line that does not match its check (edited" in warning
    assert f"{out}:{len(lines)}: skipping a line cut short" in warning
    assert verdicts(out) == verdicts(clean)  # every item has an intact line with the clean run's verdict

    again, asked_again, _ = judge_again(server, out, pairs)
    assert asked_again == []  # the lines the resumed run appended pass their checks
    as_judged(again, lines)


def test_an_edited_raw_answer_is_not_scored(judged, tmp_path: Path) -> None:
    """A line whose raw answer (and score and accuracy) were changed by hand is judged again, not scored as edited."""
    server, _, _, lines, unique, pairs = judged
    edited_at = unique[1]
    row = json.loads(lines[edited_at])
    answer = json.loads(row["answer"]["content"])
    answer["score"] = (answer["score"] + 2) % 4  # another score: the system's mean accuracy would change
    row["answer"]["content"], row["score"], row["accuracy"] = json.dumps(answer), answer["score"], answer["score"] / 3
    out = tmp_path / "resumed.jsonl"
    out.write_text("\n".join([*lines[:edited_at], json.dumps(row), *lines[edited_at + 1 :]]) + "\n", encoding="utf-8")

    judged_again, asked, messages = judge_again(server, out, pairs)
    assert asked == [digest_of(json.loads(lines[edited_at]))]
    as_judged(judged_again, lines)  # the clean run's verdicts, not the edited one
    assert f"{out}:{edited_at + 1}: skipping a line that does not match its check" in results_warning(messages, out)


def test_lines_without_a_check_are_judged_again_with_a_warning(judged, tmp_path: Path) -> None:
    """A results file written before the checks (no ``check`` field): nothing in it is reused, every item is asked
    again, the warning says why and names the first five lines; the lines appended as the items are judged again
    (as the command appends them) pass their checks and hold the clean run's verdicts."""
    from persona_metrics.summary_eval.results_log import ResultsLog

    server, _, clean, lines, _, pairs = judged
    old = [json.dumps({k: v for k, v in json.loads(line).items() if k != "check"}) for line in lines]
    out = tmp_path / "old.jsonl"
    out.write_text("\n".join(old) + "\n", encoding="utf-8")

    judged_again, asked, messages = judge_again(server, out, pairs)
    assert sorted(asked) == sorted(digest_of(json.loads(line)) for line in lines)
    as_judged(judged_again, lines)
    warning = results_warning(messages, out)
    assert f"{out}:1: skipping a line without a check (written by an older persona-metrics" in warning
    assert f"{out}:5: " in warning  # the first five, then a count
    assert f"{out}:6: " not in warning
    assert warning.endswith(f"; and {ITEMS - 5} more")

    log = ResultsLog(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PersonaMetricsWarning)  # the warning above, again
        log.answers()  # as the command reads the file before it appends to it
    for verdict, line in zip(judged_again, lines, strict=True):
        place = {k: v for k, v in json.loads(line).items() if k in ("system", "item", "id")}
        log.append({**place, **verdict.record()})
    log.close()
    assert verdicts(out) == verdicts(clean)


def test_a_resealed_score_that_is_not_its_raw_answers_is_judged_again(judged, tmp_path: Path) -> None:
    """A line whose check was recomputed after its score was changed: the score is checked against its raw answer,
    parsed again with the rubric's parser, and the line is not reused."""
    server, _, _, lines, unique, pairs = judged
    edited_at = unique[2]
    row = {k: v for k, v in json.loads(lines[edited_at]).items() if k != "check"}
    row["score"] = (row["score"] + 1) % 4
    out = tmp_path / "resumed.jsonl"
    out.write_text("\n".join([*lines[:edited_at], sealed(row), *lines[edited_at + 1 :]]) + "\n", encoding="utf-8")

    judged_again, asked, messages = judge_again(server, out, pairs)
    assert asked == [digest_of(row)]
    as_judged(judged_again, lines)
    assert f"{out}:{edited_at + 1}: skipping a line whose score {row['score']} is not its raw answer's" in (
        results_warning(messages, out)
    )


def test_a_damaged_file_never_crashes_and_reuses_only_intact_lines(tmp_path: Path) -> None:
    """ResultsLog.answers on garbage, a JSON array, a line with a broken check and blank lines: one warning naming
    each (FILE:LINE), the intact line's answer only, no exception."""
    from persona_metrics.summary_eval.results_log import ResultsLog

    answer = {"content": json.dumps({"score": 2, "rationale": "r"}), "logprobs": None, "format": "json_schema"}
    good = {"status": "json", "accuracy": 2 / 3, "score": 2, "rationale": "r", "cached": False, "key": "k1"}
    bad_check = sealed({**good, "key": "k2", "answer": answer})[:-3] + '0"}'  # its last hex digit changed
    if bad_check == sealed({**good, "key": "k2", "answer": answer}):
        bad_check = bad_check[:-3] + '1"}'
    path = tmp_path / "judged.jsonl"
    lines = [sealed({**good, "answer": answer}), "", "garbage {", json.dumps([good]), bad_check, "   "]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.warns(PersonaMetricsWarning) as caught:
        answers = ResultsLog(path).answers()
    assert list(answers) == ["k1"]
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(f"{path}: 3 lines not reused")
    assert f"{path}:3: skipping a line that is not JSON" in message
    assert f"{path}:4: skipping a line that is not a JSON object" in message
    assert f"{path}:5: skipping a line that does not match its check" in message


def test_states_files_and_results_files_share_one_line_check(tmp_path: Path) -> None:
    """One implementation (``persona_metrics.line_checks``): a states line's check covers its number and text, as
    states files written before the move have it; a results line's covers its text alone."""
    import doctest

    from persona_metrics import line_checks
    from persona_metrics.sharding.files import END, seal
    from persona_metrics.summary_eval.results_log import ResultsLog

    assert doctest.testmod(line_checks).failed == 0
    body = json.dumps(END)
    by_hand = hashlib.blake2b(f"1\n{body}".encode("ascii"), digest_size=8).hexdigest()
    assert seal([]) == f'{body[:-1]}{CHECK}{by_hand}"}}\n'
    log = ResultsLog(tmp_path / "judged.jsonl")
    log.append({"item": 0, "status": "invalid", "key": "k"})
    log.close()
    (line,) = (tmp_path / "judged.jsonl").read_text(encoding="utf-8").splitlines()
    assert line == sealed({"item": 0, "status": "invalid", "key": "k"})
    assert line_checks.line_fault(line) is None
    assert line_checks.line_fault(line, 1) == "mismatch"  # no line number in a results line's check
