"""The viewer in a real (headless) browser, on a real run directory: what a person sees and clicks."""

from __future__ import annotations

import json
import math
import re
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ideaco.metrics import SUMMARY
from ideaco.metrics.units import value_text
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


def _open_tab(page: Any, name: str) -> None:
    """The page as it opens, then one of its tabs."""
    _reload(page)
    page.find_element("css selector", f"#tabs [data-tab='{name}']").click()


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
    _open_tab(page, "people")
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


# ---------------------------------------------------------------------------- a page that fits (issue 29, item 6)
#
# What a person sees at 1024 and 1400 px, measured in the browser with getBoundingClientRect: the
# rooms fit or scroll by whole columns under a fixed time column, cards line up by time, the detail
# panel never covers its card, times read as times, people's colours are told apart, charts have
# time labels clear of each other, and metrics read as `ideaco report` prints them. Each test
# leaves a screenshot of what it measured in the session's `screens` folder.

WIDTHS = (1024, 1400)
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


@pytest.fixture(scope="module")
def screens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screens")


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def width(request: pytest.FixtureRequest, page: Any) -> Iterator[int]:
    page.set_window_size(request.param, 900)
    try:
        _reload(page)
        assert page.execute_script("return window.innerWidth") == request.param
        yield request.param
    finally:
        page.set_window_size(1400, 900)


def _shot(page: Any, screens: Path, name: str, width: int) -> None:
    """A screenshot of what a test measured: a PNG as wide as the window."""
    png = page.get_screenshot_as_png()
    (screens / f"{name}-{width}.png").write_bytes(png)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">I", png[16:20])[0] == width


def _settled(page: Any, script: str, *args: Any) -> Any:
    """The value of `script` once two reads in a row agree (a scroll snapping, a layout after a resize)."""
    deadline = time.monotonic() + 5
    last = page.execute_script(script, *args)
    while time.monotonic() < deadline:
        now = page.execute_script(script, *args)
        if now == last:
            return now
        last = now
    raise AssertionError(f"never settled: {script}")


# The lanes' box, the part of it that shows rooms (right of the time column, below the room names),
# and the boxes of the time column's labels, the room names and every card and silence mark.
MEASURE = """
var lanes = document.getElementById('lanes'), box = lanes.getBoundingClientRect();
var gutter = document.querySelector('#grid-head > :first-child').getBoundingClientRect();
var head = document.getElementById('grid-head').getBoundingClientRect();
function r(e) { var b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; }
return {
  scroll: lanes.scrollLeft,
  view: [gutter.right, head.bottom, box.left + lanes.clientWidth, box.top + lanes.clientHeight],
  lanes: r(lanes),
  gutters: Array.from(document.querySelectorAll('#grid .gutter')).map(r)
    .filter(g => g[3] > head.bottom && g[1] < box.top + lanes.clientHeight),
  heads: Array.from(document.querySelectorAll('#grid-head .room-head')).map(r),
  cards: Array.from(document.querySelectorAll('#grid .msg, #grid .sil')).map(r)
    .filter(c => c[3] > head.bottom && c[1] < box.top + lanes.clientHeight),
};
"""


def _cut(boxes: list[list[float]], view: list[float]) -> list[list[float]]:
    """Boxes that show in part: they reach into the view sideways but do not fit in it."""
    left, right = view[0], view[2]
    return [
        b for b in boxes if b[2] > left + 1 and b[0] < right - 1 and (b[0] < left - 1 or b[2] > right + 1)
    ]


@pytest.mark.parametrize("where", ["start", "part of a column", "end"])
def test_the_rooms_fit_or_scroll_by_whole_columns_under_a_fixed_time_column(page, width, where, screens):
    page.execute_script("window.ideacoView.renderAll()")
    column = page.execute_script("return document.querySelector('#grid-head .room-head').offsetWidth")
    target = {"start": 0, "part of a column": int(column * 1.4), "end": 10**6}[where]
    page.execute_script("document.getElementById('lanes').scrollLeft = arguments[0]", target)
    seen = _settled(page, MEASURE)
    _shot(page, screens, f"timeline-{where.replace(' ', '-')}", width)
    assert seen["cards"] and seen["heads"]
    # The time column stays at the lanes' left edge however far the rooms scrolled.
    assert all(abs(g[0] - seen["lanes"][0]) <= 1 for g in seen["gutters"]), (
        seen["scroll"],
        seen["gutters"][:3],
    )
    # A room is in view whole or not at all: no name, card or silence cut at either side.
    assert not _cut(seen["heads"], seen["view"]), seen["view"]
    assert not _cut(seen["cards"], seen["view"]), seen["view"]
    if where == "end":  # the last room can be reached
        assert seen["heads"][-1][2] <= seen["view"][2] + 1


def test_cards_line_up_by_time_across_the_rooms(page):
    _reload(page)
    page.execute_script("window.ideacoView.renderAll()")
    marks = page.execute_script(
        "var top = document.getElementById('lanes').scrollTop;"
        "return Array.from(document.querySelectorAll('#grid .msg, #grid .sil')).map(e => {"
        " var b = e.getBoundingClientRect();"
        " return [e.querySelector('.time').textContent.slice(0, 5), b.top + top, b.bottom + top]; })"
    )
    by_minute: dict[str, list[list[float]]] = {}
    for minute, top, bottom in marks:
        by_minute.setdefault(minute, []).append([top, bottom])
    minutes = sorted(by_minute)
    assert len(minutes) > 10
    # Whatever its room, everything of a later minute starts below everything of an earlier one.
    for earlier, later in zip(minutes, minutes[1:], strict=False):
        lowest = max(b for _, b in by_minute[earlier])
        highest = min(t for t, _ in by_minute[later])
        assert highest >= lowest - 1, (earlier, later)


def _visible_cards(page: Any) -> list[Any]:
    """The message cards wholly in the lanes' view, left to right."""
    return page.execute_script(
        "var l = document.getElementById('lanes'), b = l.getBoundingClientRect();"
        "var h = document.getElementById('grid-head').getBoundingClientRect().bottom;"
        "return Array.from(document.querySelectorAll('#grid .msg')).filter(c => {"
        " var r = c.getBoundingClientRect();"
        " return r.top >= h && r.bottom <= b.top + l.clientHeight && r.left >= b.left && r.right <= b.left + l.clientWidth;"
        "}).sort((p, q) => p.getBoundingClientRect().left - q.getBoundingClientRect().left)"
    )


def test_the_detail_panel_never_covers_the_card_it_opened_for(page, width, screens):
    page.execute_script("window.ideacoView.renderAll()")
    cards = _visible_cards(page)
    assert cards
    last_room = page.execute_script(
        "var room = Array.from(document.querySelectorAll('input[data-room]')).pop().dataset.room;"
        "return Array.from(document.querySelectorAll('#grid .msg, #grid .sil')).find(c => c.dataset.conv === room)"
    )
    # The first room in view, the last one in view (where a right-hand panel would fall), the last room.
    for n, card in enumerate([cards[0], cards[-1], last_room]):
        page.execute_script("arguments[0].click()", card)
        seen = _settled(page, CLICKED, card)
        _shot(page, screens, f"detail-{n}", width)
        card_box, panel, view = seen["card"], seen["panel"], seen["view"]
        assert seen["shown"]
        overlap = min(card_box[2], panel[2]) - max(card_box[0], panel[0]) > 0 and (
            min(card_box[3], panel[3]) - max(card_box[1], panel[1]) > 0
        )
        assert not overlap, (card_box, panel)
        assert view[0] - 1 <= card_box[0] and card_box[2] <= view[2] + 1, (card_box, view)
        assert view[1] - 1 <= card_box[1] and card_box[1] < view[3], (card_box, view)
        assert seen["hit"], "the card's middle is covered"


CLICKED = """
var card = arguments[0];
var c = card.getBoundingClientRect(), p = document.getElementById('detail').getBoundingClientRect();
var l = document.getElementById('lanes'), b = l.getBoundingClientRect();
var h = document.getElementById('grid-head').getBoundingClientRect().bottom;
var hit = document.elementFromPoint((c.left + c.right) / 2, (c.top + Math.min(c.bottom, b.top + l.clientHeight)) / 2);
return {card: [c.left, c.top, c.right, c.bottom], panel: [p.left, p.top, p.right, p.bottom],
        view: [b.left, h, b.left + l.clientWidth, b.top + l.clientHeight],
        shown: !document.getElementById('detail').hidden, hit: card.contains(hit)};
"""


def test_times_read_as_clock_times_in_the_detail_panel(page):
    _reload(page)
    detail = page.find_element("id", "detail-body")
    card = next(
        c
        for c in page.find_elements("css selector", "#grid .msg")
        if c.get_attribute("data-sender") != "boss"
    )
    page.execute_script("arguments[0].click()", card)
    assert re.search(r"next look at \d\d:\d\d:\d\d\b", detail.text), detail.text
    assert not ISO.search(detail.text), detail.text
    page.execute_script("window.ideacoView.renderAll()")
    for mark in page.find_elements("css selector", "#grid .sil")[:25]:
        page.execute_script("arguments[0].click()", mark)
        assert not ISO.search(detail.text), detail.text


def _rgb(colour: str) -> tuple[int, ...]:
    """`rgb(r, g, b)` as the browser computes a colour."""
    return tuple(int(float(v)) for v in re.findall(r"[\d.]+", colour)[:3])


def _lab(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour."""

    def linear(c: int) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in _rgb(colour))
    xyz = (
        (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    )
    fx, fy, fz = (t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


TOLD_APART = 30  # CIE76 distance: about the gap between two named colours, far above a just-noticeable 2.3


def test_people_s_colours_are_told_apart_and_the_same_everywhere(page):
    _open_tab(page, "people")
    shown = page.execute_script(
        "var out = {};"
        "document.querySelectorAll('#talk .node').forEach(g => {"
        " out[g.querySelector('text').textContent] = getComputedStyle(g.querySelector('circle')).fill; });"
        "return out;"
    )
    lines = page.execute_script(
        "return Array.from(document.querySelectorAll('#stamina polyline'))"
        ".map(l => [l.querySelector('title').textContent, getComputedStyle(l).stroke])"
    )
    assert len(shown) >= 6
    for name, colour in lines:
        assert colour == shown.get(name, colour), name  # one colour per person, in every chart
    names = sorted(shown)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert math.dist(_lab(shown[a]), _lab(shown[b])) >= TOLD_APART, (a, shown[a], b, shown[b])
    palette = page.execute_script(  # what 12 people would get, as the browser reads each colour
        "return window.ideacoView.palette.map(c => {"
        " var e = document.createElement('i'); e.style.color = c; document.body.appendChild(e);"
        " var rgb = getComputedStyle(e).color; e.remove(); return rgb; })"
    )
    boss = shown["Boss"]  # and none of them the boss's red
    palette.append(boss)
    assert len(set(palette)) >= 12
    for i, a in enumerate(palette):
        for b in palette[i + 1 :]:
            assert math.dist(_lab(a), _lab(b)) >= TOLD_APART, (a, b)


def _texts(page: Any, holder: str) -> dict[str, Any]:
    return page.execute_script(
        "var s = document.querySelector(arguments[0] + ' svg'), box = s.getBoundingClientRect();"
        "return {svg: [box.left, box.top, box.right, box.bottom],"
        " texts: Array.from(s.querySelectorAll('text')).map(t => { var b = t.getBoundingClientRect();"
        "  return [t.textContent, b.left, b.top, b.right, b.bottom]; })}",
        holder,
    )


@pytest.mark.parametrize("chart", ["#stamina", "#affinity", "#talk"])
def test_chart_labels_are_clear_of_each_other_with_times_along_the_axis(page, chart, screens):
    _open_tab(page, "people")
    seen = _texts(page, chart)
    svg_box, texts = seen["svg"], seen["texts"]
    for text, *box in texts:  # inside the drawing
        assert svg_box[0] - 1 <= box[0] and box[2] <= svg_box[2] + 1, (text, box, svg_box)
        assert svg_box[1] - 1 <= box[1] and box[3] <= svg_box[3] + 1, (text, box, svg_box)
    for i, (a, *p) in enumerate(texts):  # no label over another
        for b, *q in texts[i + 1 :]:
            apart = p[2] <= q[0] or q[2] <= p[0] or p[3] <= q[1] or q[3] <= p[1]
            assert apart, (a, p, b, q)
    if chart != "#talk":
        times = [(box[0] + box[2]) / 2 for text, *box in texts if re.fullmatch(r"\d\d:\d\d", text)]
        assert len(times) >= 3 and times == sorted(times), times  # a 40-minute run: more than "09:00"
        plot = svg_box[2] - svg_box[0]
        assert times[-1] - times[0] >= 0.4 * plot, (times, plot)
    page.execute_script("document.querySelector(arguments[0]).scrollIntoView()", chart)
    _shot(page, screens, f"people-{chart[1:]}", 1400)


def test_metrics_read_as_the_report_prints_them(page, run_dir, screens):
    report = ideaco("report", run_dir, "--json", "--no-plots")
    assert report.exit_code == 0, report.output
    summary = json.loads(report.stdout)["collaboration"]["summary"]
    _open_tab(page, "metrics")
    tables = page.execute_script(
        "return Array.from(document.querySelectorAll('#summary table')).map(t =>"
        " Array.from(t.querySelectorAll('tr')).slice(1).map(r => Array.from(r.cells).map(c => c.textContent)))"
    )
    shown = {row[0]: row[1] for row in tables[-1]}
    for metric in SUMMARY:
        assert shown[metric.label] == value_text(metric.key, summary[metric.key]), metric.key
    assert shown["boss lines answered by the addressee"].endswith("%")
    silences = tables[-2]
    assert silences and all(row[2].endswith("%") for row in silences), silences
    figures = [cell for table in tables[1:] for row in table for cell in row[1:]]
    assert not [f for f in figures if re.fullmatch(r"-?\d+\.\d{3,}", f)], figures  # nothing unrounded
    _shot(page, screens, "metrics", 1400)
