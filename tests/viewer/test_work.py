"""The viewer's work and documents (issue 37, item 7): the terminal's ✎ work lines on the timeline,
the Documents tab only when documents exist, its times the moments steps landed, and a document's
first version readable whole. Data tests where it is about what the page is given, browser tests
where it is about what the page shows."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from ideaco.cli.display import WORK_TOOLS as TERMINAL_WORK_TOOLS
from ideaco.store.runlog import RunLog
from ideaco.viewer import gather, render
from ideaco.viewer.work import WORK_TOOLS, landed, line_text, work_rows
from tests.test_analysis import make_run
from tests.viewer.conftest import GUIDE, GUIDE_V1, HOSTILE, REJECT_NOTES, SPEC, SPEC_V1, SPEC_V2, ideaco

START = datetime(2026, 1, 5, 9, 0, 0)
WORK_LINE = re.compile(r"^(\d\d:\d\d:\d\d) ✎ (.+)$")


def terminal_work(output: str) -> list[str]:
    """The ✎ lines `ideaco run` printed, as `09:01:21 ✎ Bob wrote ...`."""
    return [line.rstrip() for line in output.splitlines() if WORK_LINE.match(line.rstrip())]


def clock(run: RunLog, t: float) -> str:
    return (run.start + timedelta(seconds=t)).strftime("%H:%M:%S")


# ---------------------------------------------------------------------------- what the page is given


def test_the_terminal_and_the_viewer_agree_on_what_work_is():
    assert WORK_TOOLS == TERMINAL_WORK_TOOLS


def _record(step: dict[str, Any], *, applied_at: str | None = "2026-01-05T09:01:05") -> dict[str, Any]:
    applied: dict[str, Any] = {"steps": [step]}
    if applied_at:
        applied["at"] = applied_at
    return {
        "id": "t1",
        "at": "2026-01-05T09:01:00",
        "employee": "bob",
        "conversation": "boss:bob",
        "applied": applied,
    }


@pytest.mark.parametrize(
    "message",
    [
        "wrote docs/spec.md (version 1a2b3c4d)",  # Latin
        "wrote docs/接口文档.md (version 1a2b3c4d)",  # Chinese
        "wrote docs/仕様書.md (version 1a2b3c4d)",  # Japanese
        "wrote docs/दस्तावेज़.md (version 1a2b3c4d)",  # Devanagari, with its marks
        "wrote docs/เอกสาร.md (version 1a2b3c4d)",  # Thai
        "wrote docs/документ.md (version 1a2b3c4d)",  # Cyrillic
        "wrote docs/문서.md (version 1a2b3c4d)",  # Korean
    ],
)
def test_a_work_line_is_the_tool_s_message_at_the_moment_it_landed(message):
    [row] = work_rows(
        [_record({"step": "tool", "tool": "write_document", "ok": True, "message": message})], START
    )
    assert row == {
        "t": 65.0,
        "emp": "bob",
        "conv": "boss:bob",
        "tool": "write_document",
        "text": message,
        "thought": 0,
    }


@pytest.mark.parametrize(
    ("step", "lines"),
    [
        (
            {"step": "tool", "tool": "review", "ok": True, "message": "approved docs/a.md"},
            ["approved docs/a.md"],
        ),
        ({"step": "tool", "tool": "review", "ok": False, "message": "you are not its reviewer"}, []),
        (
            {"step": "tool", "tool": "read_document", "ok": True, "message": "read docs/a.md"},
            [],
        ),  # changes nothing
        ({"step": "document", "tool": "write_document", "path": "docs/a.md"}, []),  # the change, not the call
        (
            {"step": "tool", "tool": "sign_off", "ok": True, "message": "asked the boss"},
            ["asked the boss"],  # the request says what it did (issue 37: a lead only asks)
        ),
        ({"step": "tool", "tool": "rebut", "ok": True}, ["rebut"]),  # no message: the tool's name
    ],
)
def test_only_a_work_tool_that_succeeded_is_a_work_line(step, lines):
    assert [row["text"] for row in work_rows([_record(step)], START)] == lines


def test_a_work_line_lands_at_applied_at_and_an_older_record_at_its_own_at():
    step = {"step": "tool", "tool": "rebut", "ok": True, "message": "rebutted"}
    assert [r["t"] for r in work_rows([_record(step)], START)] == [65.0]
    assert [r["t"] for r in work_rows([_record(step, applied_at=None)], START)] == [60.0]
    assert landed({"at": "2026-01-05T09:01:00"}) == "2026-01-05T09:01:00"  # no applied at all
    assert work_rows([{"at": "2026-01-05T09:01:00", "employee": "bob"}], START) == []  # format 1: no steps
    assert line_text({"tool": "sign_off", "message": "要求 req-1"}) == "要求 req-1"
    assert line_text({"tool": "rebut"}) == "rebut"


def test_the_page_is_given_the_terminal_s_work_lines(doc_run):
    rundir, output = doc_run
    run = RunLog.open(rundir)
    data, _ = gather(run)
    people = {p["id"]: p["name"] for p in data["people"]}
    given = [f"{clock(run, w['t'])} ✎ {people[w['emp']]} {w['text']}" for w in data["work_lines"]]
    printed = terminal_work(output)
    assert len(printed) == 7, output  # Bob's 4 calls, Alice's 2 verdicts, Charlie's guide
    assert given == printed


def test_an_old_format_run_has_no_work_lines_and_no_documents_tab(tmp_path):
    data, records = gather(RunLog.open(make_run(tmp_path / "run")))
    assert data["work_lines"] == [] and data["documents"] == []
    assert 'data-tab="documents"' not in render(data, records)


def test_the_documents_table_times_are_when_each_step_landed_as_versions_are(doc_run):
    rundir, output = doc_run
    run = RunLog.open(rundir)
    data, _ = gather(run)
    spec = next(d for d in data["documents"] if d["key"] == f"eng/{SPEC}")
    # The terminal prints each step at the moment it landed: so does the table, row for row.
    times = [WORK_LINE.match(line).group(1) for line in terminal_work(output) if SPEC in line]
    assert [clock(run, h["t"]) for h in spec["history"]] == times
    # A version is dated when it landed; its row in the table says the same moment.
    made = [h for h in spec["history"] if h["tool"] in ("write_document", "revise_document")]
    assert [h["t"] for h in made] == [v["t"] for v in spec["versions"]]
    # ... which is not when its think began (the old table's time, 5 s or more earlier).
    began = {r["id"]: r["at"] for r in run.thoughts}
    for h in spec["history"]:
        start_offset = (datetime.fromisoformat(began[h["thought"]]) - run.start).total_seconds()
        assert h["t"] > start_offset


def test_the_documents_tab_is_in_the_page_only_when_documents_exist(doc_run, run_dir):
    with_docs = gather(RunLog.open(doc_run[0]))
    without = gather(RunLog.open(run_dir))
    assert len(with_docs[0]["documents"]) == 2 and without[0]["documents"] == []
    assert 'data-tab="documents"' in render(*with_docs) and 'id="documents"' in render(*with_docs)
    assert 'data-tab="documents"' not in render(*without) and 'id="documents"' not in render(*without)


# ---------------------------------------------------------------------------- what the page shows


def _open(browser: Any, rundir: Path) -> Any:
    """The run's page as it opens (written by `ideaco view`)."""
    result = ideaco("view", rundir)
    assert result.exit_code == 0, result.output
    browser.get((rundir / "view.html").resolve().as_uri())
    assert browser.execute_script("return document.body.dataset.ready") == "1"
    return browser


@pytest.fixture
def doc_page(doc_run: tuple[Path, str], browser: Any) -> Any:
    return _open(browser, doc_run[0])


@pytest.fixture
def page_without_documents(run_dir: Path, browser: Any) -> Any:
    return _open(browser, run_dir)


@pytest.fixture
def page_without_documents_url(run_dir: Path) -> str:
    assert ideaco("view", run_dir).exit_code == 0
    return (run_dir / "view.html").resolve().as_uri()


def _fresh(page: Any) -> None:
    page.refresh()
    assert page.execute_script("return document.body.dataset.ready") == "1"


def _documents_tab(page: Any) -> None:
    page.find_element("css selector", "#tabs [data-tab='documents']").click()


SHOWN_WORK = """
return Array.from(document.querySelectorAll('#grid .work')).map(w =>
  [w.querySelector('.time').textContent, w.querySelector('.work-sign').textContent,
   w.querySelector('.work-who').textContent, w.querySelector('.work-what').textContent].join(' '));
"""


def test_the_timeline_shows_the_terminal_s_work_lines_in_time_order(doc_page, doc_run):
    doc_page.execute_script("window.ideacoView.renderAll()")
    printed = terminal_work(doc_run[1])
    assert doc_page.execute_script(SHOWN_WORK) == printed and len(printed) == 7
    assert "7 of 7 work lines" in doc_page.find_element("id", "shown").text
    # In its room's column: Bob's write is in his chat with the boss, beside his "On it."
    write = doc_page.find_element("css selector", "#grid .work[data-tool='write_document']")
    said = doc_page.find_element("css selector", "#grid .msg[data-sender='bob']")
    assert write.get_attribute("data-conv") == said.get_attribute("data-conv") == "boss:bob"
    assert write.location["x"] == said.location["x"] and write.location["y"] > said.location["y"]


def test_clicking_a_work_line_shows_the_thought_that_did_it(doc_page):
    doc_page.execute_script("window.ideacoView.renderAll()")
    review = doc_page.find_element("css selector", "#grid .work[data-tool='review']")
    doc_page.execute_script("arguments[0].click()", review)
    shown = doc_page.find_element("id", "detail-body").text
    assert shown.startswith(f"✎ Alice rejected {SPEC}") and "The thought behind it" in shown
    assert "tool=review" in shown  # the applied record: its review step, the notes in its JSON
    assert REJECT_NOTES in doc_page.find_element("id", "detail-body").get_attribute("textContent")


def test_the_work_filter_shows_work_only_and_the_employee_filter_applies(doc_page):
    doc_page.execute_script(
        "var s = document.getElementById('f-show'); s.value = 'work';"
        "s.dispatchEvent(new Event('input', {bubbles: true})); window.ideacoView.renderAll();"
    )
    counts = doc_page.execute_script(
        "return ['.msg', '.sil', '.work'].map(c => document.querySelectorAll('#grid ' + c).length)"
    )
    assert counts == [0, 0, 7]
    _fresh(doc_page)
    doc_page.execute_script(
        "var s = document.getElementById('f-employee'); s.value = 'alice';"
        "s.dispatchEvent(new Event('input', {bubbles: true})); window.ideacoView.renderAll();"
    )
    who = doc_page.execute_script(
        "return Array.from(document.querySelectorAll('#grid .work')).map(w => w.dataset.sender)"
    )
    assert who == ["alice", "alice"]


def test_a_run_without_documents_has_no_documents_tab(page_without_documents):
    tabs = page_without_documents.execute_script(
        "return Array.from(document.querySelectorAll('#tabs button')).map(b => b.dataset.tab)"
    )
    assert tabs == ["timeline", "people", "metrics"]
    assert page_without_documents.execute_script("return document.getElementById('documents')") is None


def test_a_run_with_documents_has_the_tab_and_it_shows_them(doc_page):
    tabs = doc_page.execute_script(
        "return Array.from(document.querySelectorAll('#tabs button')).map(b => b.dataset.tab)"
    )
    assert tabs == ["timeline", "people", "metrics", "documents"]
    _documents_tab(doc_page)
    assert doc_page.find_element("id", "documents").is_displayed()
    heads = [h.text for h in doc_page.find_elements("css selector", "#docs h2")]
    assert heads == [f"eng/{SPEC}", f"eng/{GUIDE}"]


TABLE = """
return Array.from(document.querySelectorAll('#docs table.history')).map(t =>
  Array.from(t.querySelectorAll('tr')).slice(1).map(r => Array.from(r.cells).map(c => c.textContent)));
"""


def test_the_documents_table_shows_landing_times_the_versions_say_too(doc_page, doc_run):
    _documents_tab(doc_page)
    spec_rows, guide_rows = doc_page.execute_script(TABLE)
    printed = terminal_work(doc_run[1])
    assert [row[0] for row in spec_rows] == [WORK_LINE.match(x).group(1) for x in printed if SPEC in x]
    assert [row[0] for row in guide_rows] == [WORK_LINE.match(x).group(1) for x in printed if GUIDE in x]
    heads = [h.text for h in doc_page.find_elements("css selector", "#docs h5")]
    written = {row[2]: row[0] for row in spec_rows if row[2] in ("write_document", "revise_document")}
    assert any(h.endswith(" at " + written["revise_document"]) and "(now)" in h for h in heads), heads
    assert any(h.endswith(" at " + written["write_document"]) and "(the first)" in h for h in heads), heads


def test_a_document_s_first_version_reads_whole(doc_page):
    _documents_tab(doc_page)
    texts = doc_page.execute_script(
        "return Array.from(document.querySelectorAll('#docs pre')).map(p => [p.className, p.textContent])"
    )
    assert ["doc first", SPEC_V1] in texts  # seven scripts, each line whole, not a diff's minus side
    assert ["doc now", SPEC_V2] in texts and ["doc now", GUIDE_V1] in texts
    assert sum(cls == "doc first" for cls, _ in texts) == 1  # the guide's only version is "now, the first"
    heads = [h.text for h in doc_page.find_elements("css selector", "#docs h5")]
    assert any("(now, the first) by Charlie" in h for h in heads), heads


def test_the_show_filter_offers_work_only_where_there_is_work(doc_page, page_without_documents_url, browser):
    offered = "return Array.from(document.querySelectorAll('#f-show option')).map(o => o.value)"
    assert doc_page.execute_script(offered)[:4] == ["all", "messages", "work", "silences"]
    browser.get(page_without_documents_url)
    assert browser.execute_script(offered)[:3] == ["all", "messages", "silences"]


def test_a_work_line_s_text_travels_as_data_never_as_markup(doc_run):
    data, records = gather(RunLog.open(doc_run[0]))
    data["work_lines"][0]["text"] = HOSTILE
    page = render(data, records)
    assert HOSTILE not in page and "window.__pwned" in page  # in the data block, its < and > escaped


def test_a_silence_is_given_the_moment_its_thought_landed(doc_run):
    run = RunLog.open(doc_run[0])
    data, _ = gather(run)
    for row, record in zip(data["thoughts"], run.thoughts, strict=True):
        began = datetime.fromisoformat(record["at"]) - run.start
        landed_at = datetime.fromisoformat(record["applied"]["at"]) - run.start
        assert (row["t"], row["landed"]) == (
            round(began.total_seconds(), 3),
            round(landed_at.total_seconds(), 3),
        )
        assert row["landed"] > row["t"]  # the scripted model answers in simulated seconds


def test_a_silent_thought_s_mark_and_its_work_line_show_one_moment(doc_page):
    """Charlie's thought kept quiet and wrote the guide: one moment, the silence first, as `ideaco run
    --show-thoughts` prints them (the mark showed when the think began, 5 s before its work)."""
    doc_page.execute_script("window.ideacoView.renderAll()")
    cell = doc_page.execute_script(
        "var w = document.querySelector('#grid .work[data-sender=charlie]'); var c = w.closest('.cell');"
        "return Array.from(c.children).map(e => [e.className, e.querySelector('.time').textContent]);"
    )
    sil, work = (
        [k for k, (cls, _) in enumerate(cell) if cls == "sil"],
        [k for k, (c, _) in enumerate(cell) if c == "work"],
    )
    assert len(sil) == 1 and len(work) == 1 and sil[0] + 1 == work[0], cell
    assert cell[sil[0]][1] == cell[work[0]][1], cell
