"""The viewer in a real (headless) browser, on a real run directory: what a person sees and clicks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.viewer.conftest import HOSTILE, HOSTILE_INNER, ideaco


@pytest.fixture(scope="module")
def page(run_dir: Path, browser: Any) -> Any:
    result = ideaco("view", run_dir)
    assert result.exit_code == 0, result.output
    browser.get_log("performance")  # drop what earlier pages logged
    browser.get((run_dir / "view.html").resolve().as_uri())
    assert browser.execute_script("return document.body.dataset.ready") == "1"
    return browser


def _reload(page: Any) -> None:
    page.refresh()
    assert page.execute_script("return document.body.dataset.ready") == "1"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_message_of_messages_jsonl_is_on_the_timeline(page, run_dir):
    _reload(page)
    page.execute_script("window.ideacoView.renderAll()")
    shown = page.execute_script("return document.querySelectorAll('#grid .msg').length")
    messages = _lines(run_dir / "messages.jsonl")
    assert shown == len(messages) > 20
    assert page.find_element("id", "shown").text.startswith(f"{len(messages)} of {len(messages)} messages")


def test_clicking_a_message_shows_the_thought_behind_it(page, run_dir):
    _reload(page)
    thoughts = {t["id"]: t for t in _lines(run_dir / "thoughts.jsonl")}
    card = next(
        c
        for c in page.find_elements("css selector", "#grid .msg")
        if c.get_attribute("data-sender") != "boss"
    )
    text = card.find_element("css selector", ".text").text
    card.click()
    detail = page.find_element("id", "detail-body")
    assert detail.is_displayed()
    record = next(t for t in thoughts.values() if any(m["content"] == text for m in t["thought"]["messages"]))
    shown = detail.text
    assert record["thought"]["innerThoughts"] in shown
    assert f"interest\n{record['thought']['interestLevel']} / 10" in shown
    assert f"saturation\n{record['thought']['topicSaturation']} / 10" in shown
    assert "Applied" in shown and "posted" in shown  # the applied record: the draft step that posted it


def test_clicking_a_silence_shows_its_gate_and_reason(page):
    _reload(page)
    mark = page.find_element("css selector", "#grid .sil")
    gate = mark.get_attribute("data-gate")
    mark.click()
    shown = page.find_element("id", "detail-body").text
    assert "kept quiet" in shown and f"gate\n{gate}" in shown and "Inner thoughts" in shown


def test_filters_hide_what_they_should(page, run_dir):
    _reload(page)
    messages = _lines(run_dir / "messages.jsonl")
    page.execute_script(
        "var s = document.getElementById('f-employee'); s.value = 'ana';"
        "s.dispatchEvent(new Event('input', {bubbles: true})); window.ideacoView.renderAll();"
    )
    senders = page.execute_script(
        "return Array.from(document.querySelectorAll('#grid .msg, #grid .sil')).map(e => e.dataset.sender)"
    )
    assert senders and set(senders) == {"ana"}
    assert senders.count("ana") >= sum(m["sender"] == "ana" for m in messages)

    _reload(page)
    page.find_element("css selector", "input[data-room='sync']").click()  # hide the sync room
    page.execute_script("window.ideacoView.renderAll()")
    rooms = page.execute_script(
        "return Array.from(document.querySelectorAll('#grid .msg')).map(e => e.dataset.conv)"
    )
    assert "sync" not in rooms
    assert len(rooms) == sum(m["conversation"] != "sync" for m in messages)

    _reload(page)
    page.execute_script(
        "var s = document.getElementById('f-show'); s.value = 'gate:chose_silence';"
        "s.dispatchEvent(new Event('input', {bubbles: true})); window.ideacoView.renderAll();"
    )
    gates = page.execute_script(
        "return [document.querySelectorAll('#grid .msg').length,"
        " Array.from(document.querySelectorAll('#grid .sil')).map(e => e.dataset.gate)]"
    )
    assert gates[0] == 0 and gates[1] and set(gates[1]) == {"chose_silence"}


def test_hostile_text_shows_as_text_and_never_runs(page):
    _reload(page)
    page.execute_script("window.ideacoView.renderAll()")
    texts = [e.text for e in page.find_elements("css selector", "#grid .msg .text")]
    assert HOSTILE in texts
    assert page.execute_script("return window.__pwned") is None
    assert (
        page.execute_script("return document.querySelectorAll('#grid img, #grid script, #grid b').length")
        == 0
    )
    detail = page.find_element("id", "detail-body")
    # The model's hostile draft: posted, or held by a gate; its thought shows either way.
    for mark in page.find_elements("css selector", "#grid .sil, #grid .msg"):
        page.execute_script("arguments[0].click()", mark)
        if HOSTILE_INNER in detail.text:
            break
    assert HOSTILE_INNER in detail.text and HOSTILE in detail.text
    assert page.execute_script("return document.querySelectorAll('#detail img, #detail b').length") == 0
    assert page.execute_script("return window.__pwned") is None
    assert page.get_screenshot_as_png()[:8] == b"\x89PNG\r\n\x1a\n"  # it rendered, and can be looked at


def test_the_page_makes_no_network_request(page):
    _reload(page)
    page.execute_script("window.ideacoView.renderAll()")
    for tab in ("people", "metrics", "timeline"):
        page.find_element("css selector", f"#tabs [data-tab='{tab}']").click()
    page.find_element("css selector", "#grid .msg").click()
    urls = []
    for entry in page.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    assert urls, "the performance log recorded no request at all (not even the page)"
    assert all(u.startswith("file://") for u in urls), urls
    errors = [e for e in page.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_the_people_tab_draws_the_graph_and_the_curves(page):
    _reload(page)
    page.find_element("css selector", "#tabs [data-tab='people']").click()
    counts = page.execute_script(
        "return ['#talk svg path.edge', '#stamina svg polyline', '#affinity svg polyline']"
        ".map(s => document.querySelectorAll(s).length)"
    )
    assert all(n > 0 for n in counts), counts


@pytest.mark.parametrize("tab", ["timeline", "people", "metrics"])
def test_each_tab_shows_its_section_and_no_strip_of_another(page, tab):
    _reload(page)
    page.find_element("css selector", f'#tabs button[data-tab="{tab}"]').click()
    heights = page.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('section.tab'))"
        ".map(s => [s.id, s.getBoundingClientRect().height]))"
    )
    assert heights.pop(tab) > 0
    assert heights == {other: 0 for other in heights}  # the timeline once kept a 355 px strip
