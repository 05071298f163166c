"""`ideaco view` without a browser: the page's data, its escaping, old runs, sweeps, and errors."""

from __future__ import annotations

import html
import json
import re

import pytest

from ideaco.metrics import SUMMARY, evaluate
from ideaco.metrics.units import value_text
from ideaco.shipped import shipped_scenarios
from ideaco.store.runlog import RunLog
from ideaco.viewer import embed_json, gather, render
from tests.fakes.openai_server import FakeOpenAIServer
from tests.test_analysis import MESSAGES, THOUGHTS, make_run
from tests.viewer.conftest import HOSTILE, ideaco

DATA_BLOCK = re.compile(r'<script type="application/json" id="ideaco-data">(.*?)</script>', re.S)


def test_embedded_json_cannot_close_its_block_and_parses_the_same():
    value = {"text": HOSTILE + "</script><!-- \u2028 \u2029 &amp;", "n": [1, 2.5, None]}
    text = embed_json(value)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == value


def test_the_page_holds_the_run_and_no_agent_text_as_markup(tmp_path):
    run_dir = make_run(tmp_path / "run", names=("<b>Alice</b>", "Bob"))
    result = ideaco("view", run_dir, "--out", tmp_path / "page.html")
    assert result.exit_code == 0, result.output
    assert f"wrote {tmp_path / 'page.html'}" in result.stdout
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "<b>Alice</b>" not in page  # the name is in the data, escaped
    data = json.loads(DATA_BLOCK.search(page).group(1))
    assert len(data["messages"]) == len(MESSAGES) and len(data["thoughts"]) == len(THOUGHTS)
    assert {p["name"] for p in data["people"]} >= {"<b>Alice</b>", "Bob"}
    csp = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1))
    assert "default-src 'none'" in csp and "unsafe" not in csp


def test_an_old_format_run_opens_read_only(tmp_path):
    run_dir = make_run(tmp_path / "run")
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    data, records = gather(RunLog.open(run_dir))
    assert data["meta"]["format"] == 1 and data["meta"]["applied"] is False
    assert len(records) == len(THOUGHTS)
    keys = {m["key"] for m in data["metrics"]}
    assert keys >= {"calls", "speak_rate", "boss_replied_rate", "boss_answered_rate"}
    render(data, records)
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == before


def test_a_message_is_linked_to_the_thought_that_posted_it(tmp_path):
    data, _ = gather(RunLog.open(make_run(tmp_path / "run")))
    for msg in data["messages"]:
        if msg["thought"] is not None:
            thought = data["thoughts"][msg["thought"]]
            assert (thought["emp"], thought["spoke"]) == (msg["sender"], True)


def test_a_sweep_gets_one_page_per_run(tmp_path):
    for name in ("gates-on_s1", "gates-off_s1"):
        make_run(tmp_path / "sweep" / "runs" / name)
    result = ideaco("view", tmp_path / "sweep")
    assert result.exit_code == 0, result.output
    for name in ("gates-on_s1", "gates-off_s1"):
        assert (tmp_path / "sweep" / "runs" / name / "view.html").exists()


def test_a_directory_that_is_no_run_is_one_line(tmp_path):
    result = ideaco("view", tmp_path)
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and str(tmp_path) in result.output


@pytest.mark.parametrize("scenario", shipped_scenarios())
def test_a_run_of_every_shipped_scenario_gets_its_page(scenario, tmp_path):
    reply = {
        "innerThoughts": "on it",
        "topicSaturation": 3,
        "interestLevel": 7,
        "shouldSpeak": True,
        "reason": "asked",
        "messages": [{"content": "Checklist coming up."}],
    }
    with FakeOpenAIServer(default=reply) as fake:
        result = ideaco(
            "run", scenario, "--duration", "5m", "--out", tmp_path / "run", "--base-url", fake.base_url
        )
    assert result.exit_code == 0, result.output
    assert ideaco("view", tmp_path / "run").exit_code == 0
    data = json.loads(
        DATA_BLOCK.search((tmp_path / "run" / "view.html").read_text(encoding="utf-8")).group(1)
    )
    lines = (tmp_path / "run" / "messages.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(data["messages"]) == len(lines) > 0


def test_the_page_carries_the_teams(tmp_path):
    run = RunLog.open(make_run(tmp_path / "run"))
    team = {"id": "web", "name": "Web <team>", "members": ["alice"], "lead": "alice"}
    run.office["organization"] = {
        "name": "Acme",
        "departments": [{"id": "eng", "name": "Eng", "teams": [team]}],
    }
    data, records = gather(run)
    assert data["teams"] == [{"department": "eng", "id": "web", "name": "Web <team>", "members": ["alice"]}]
    assert "Web <team>" not in render(data, records)  # escaped in the data, shown with textContent


def test_the_metrics_tab_is_formatted_as_the_report_formats_it(run_dir):
    """Issue 29, item 6: the page gets each value as `ideaco report` prints it (one formatting,
    `metrics.units.value_text`), with its unit: rates in %, seconds in s, counts with separators."""
    run = RunLog.open(run_dir)
    data, _ = gather(run)
    summary = evaluate(run)["summary"]
    assert [(m["key"], m["text"]) for m in data["metrics"]] == [
        (m.key, value_text(m.key, summary[m.key])) for m in SUMMARY
    ]
    texts = {m["key"]: m["text"] for m in data["metrics"]}
    assert texts["speak_rate"].endswith("%") and texts["calls"].isdigit()
    # Each reply figure named for what it counts (issue 37, item 10): a reply, or the addressee's answer.
    labels = {m["key"]: m["label"] for m in data["metrics"]}
    assert labels["boss_replied_rate"] == "boss lines replied to"
    assert labels["boss_answered_rate"] == "boss lines answered by the addressee"
    boss = evaluate(run)["boss"]
    assert data["boss"] == {
        "lines": len(boss["lines"]),
        "replied": boss["replied"],
        "replied_rate": boss["replied_rate"],
        "addressed": boss["addressed"],
        "answered": boss["answered"],
        "answered_rate": boss["answered_rate"],
    }
    assert all(row[2].endswith("%") for row in data["silence_rows"]) and data["silence_rows"]
    totals = dict(data["summary_rows"]["totals"])
    assert totals["wall time"].endswith(" s") and "," in totals["prompt tokens"]
    assert value_text("calls", 1234567) == "1,234,567" and value_text("speak_rate", 0.4762) == "47.6%"
    assert value_text("task_resolve_s", 747.862) == "747.9 s" and value_text("echo", None) == "-"
