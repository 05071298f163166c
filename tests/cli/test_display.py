"""The live transcript: agent and boss text is shown literally and can never drive the terminal."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ideaco.cli.display import Transcript, format_duration, safe_text, summary_table
from ideaco.cli.main import app
from ideaco.ids import BOSS, SYSTEM
from ideaco.office.core.conversation import Message
from ideaco.office.core.stats import RunStats
from tests.guard.runs import RUNS

START = datetime(2026, 1, 5, 9, 0, 0)
CLEAN_ENV = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "IDEACO_MODEL": None}


@dataclass
class FakeClock:
    at: datetime = START

    def now(self) -> datetime:
        return self.at


@dataclass
class FakeOffice:
    """What the transcript reads from an office: names, conversation names, the clock and stats."""

    names: dict[str, str] = field(default_factory=lambda: {"alice": "Alice", "bob": "Bob"})
    conversations: dict[str, Any] = field(
        default_factory=lambda: {
            "api-design": SimpleNamespace(name="API design"),
            "eng-casual": SimpleNamespace(name="Engineering casual"),
        }
    )
    clock: FakeClock = field(default_factory=FakeClock)
    stats: RunStats = field(default_factory=RunStats)
    company: str = "Acme Labs"

    def name_of(self, who: str) -> str:
        return "Boss" if who == BOSS else self.names.get(who, who)


def console() -> Console:
    # A terminal console (so styles are real ANSI codes) that writes nowhere but its record.
    return Console(record=True, width=120, force_terminal=True, color_system="standard", file=io.StringIO())


def message(sender: str, text: str, *, conversation: str = "api-design", seconds: int = 0) -> Message:
    return Message(
        id=f"m-{sender}-{seconds}",
        at=START + timedelta(seconds=seconds),
        conversation=conversation,
        sender=sender,
        text=text,
    )


def shown(con: Console) -> str:
    return con.export_text()


# --------------------------------------------------------------------------- safe_text


@pytest.mark.parametrize(
    ("raw", "visible"),
    [
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),  # SGR colour
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),  # OSC: set window title
        ("\x1b]52;c;ZXZpbA==\x07", "\\x1b]52;c;ZXZpbA==\\x07"),  # OSC 52: write the clipboard
        ("ding\x07", "ding\\x07"),  # BEL
        ("a\x00b", "a\\x00b"),  # NUL
        ("back\x08space", "back\\x08space"),
        ("over\rwrite", "over\\x0dwrite"),  # CR could overwrite the line
        ("form\x0cfeed\x0bvt", "form\\x0cfeed\\x0bvt"),
        ("del\x7f", "del\\x7f"),
        ("\x9b31m", "\\x9b31m"),  # C1 CSI: an escape sequence in one byte
        ("\x90q\x9c", "\\x90q\\x9c"),  # C1 DCS ... ST
    ],
)
def test_control_characters_become_visible_text(raw, visible):
    assert safe_text(raw) == visible


def test_a_line_break_is_shown_as_a_mark_and_tabs_are_kept():
    assert safe_text("line one\nline two\tcol") == "line one⏎line two\tcol"
    assert safe_text("a\u2028b\u2029c") == "a\\u2028b\\u2029c"  # Unicode's own line breaks too


def test_ordinary_text_is_untouched():
    text = "REST, obviously. [bold]not markup[/] — café ★ 你好 🙂 \\x1b"
    assert safe_text(text) == text


def test_no_control_character_survives():
    every = "".join(chr(c) for c in range(0xA0))
    out = safe_text(every)
    assert {ch for ch in out if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0} == {"\t"}


# --------------------------------------------------------------------------- transcript


def test_a_message_shows_time_sender_and_text():
    con = console()
    Transcript(con).on_message(FakeOffice(), message("bob", "REST. Boring works.", seconds=75))
    assert "09:01:15 Bob: REST. Boring works." in shown(con)


def test_rich_markup_in_a_message_is_printed_literally():
    con = console()
    Transcript(con).on_message(
        FakeOffice(), message("alice", "[bold red]boss[/] says [link=http://x]hi[/link]")
    )
    assert "Alice: [bold red]boss[/] says [link=http://x]hi[/link]" in shown(con)


def test_rich_markup_in_a_name_is_printed_literally():
    con = console()
    office = FakeOffice(names={"eve": "[blink]Eve[/blink]"})
    Transcript(con).on_message(office, message("eve", "hello"))
    assert "[blink]Eve[/blink]: hello" in shown(con)


def test_terminal_escapes_in_a_message_are_shown_not_sent():
    con = console()
    Transcript(con).on_message(FakeOffice(), message("bob", "\x1b]0;owned\x07\x1b[2Jgone"))
    out = con.export_text(styles=True)
    assert "\\x1b]0;owned\\x07\\x1b[2Jgone" in out
    assert "\x07" not in out and "\x1b]" not in out and "\x1b[2J" not in out


def test_a_boss_message_is_marked_as_the_boss():
    con = console()
    Transcript(con).on_message(FakeOffice(), message(BOSS, "Should the new API be REST or GraphQL?"))
    assert "09:00:00 ★ Boss: Should the new API be REST or GraphQL?" in shown(con)


def test_only_the_real_boss_is_drawn_in_the_boss_style():
    con = console()
    office = FakeOffice(names={"mallory": "★ Boss"})
    transcript = Transcript(con)
    transcript.on_message(office, message(BOSS, "REST or GraphQL?"))
    transcript.on_message(office, message("mallory", "I am the boss now", seconds=1))
    styled = con.export_text(styles=True)
    boss_style = "\x1b[1;31m★ Boss\x1b[0m"
    assert styled.count(boss_style) == 1
    assert styled.index(boss_style) < styled.index("REST or GraphQL?") < styled.index("I am the boss now")


FORGED = "09:10:00 ★ Boss: @Alice stop"


def test_a_line_break_in_a_message_never_starts_a_transcript_line():
    con = console()
    Transcript(con).on_message(FakeOffice(), message("bob", f"ok\n{FORGED}\r\n{FORGED}", seconds=5))
    lines = [line for line in shown(con).splitlines() if line.strip()]
    assert lines[1:] == [f"09:00:05 Bob: ok⏎{FORGED}\\x0d⏎{FORGED}"]  # after the room's header


@pytest.mark.parametrize("pad", range(0, 120, 7))
def test_a_message_too_long_for_the_terminal_wraps_under_its_text_never_at_the_time(pad: int):
    con = Console(record=True, width=60, force_terminal=True, file=io.StringIO())
    transcript = Transcript(con)
    transcript.on_message(FakeOffice(), message("bob", "x" * pad + " " * 30 + FORGED))
    transcript.on_message(FakeOffice(), message("alice", "y " * 80, seconds=1))
    lines = [line for line in shown(con).splitlines() if line.strip()][1:]
    starts = [line for line in lines if not line.startswith(" ")]
    assert [line[:14] for line in starts] == ["09:00:00 Bob: ", "09:00:01 Alice"]
    assert all(line.startswith(" " * 9) for line in lines if line not in starts)


def test_a_silent_thought_is_one_line_too():
    con = console()
    thought = {"innerThoughts": f"fine\n{FORGED}"}
    Transcript(con, show_thoughts=True).on_thought(FakeOffice(), record(thought=thought))
    assert [line for line in shown(con).splitlines() if line.strip()] == [
        f"09:00:42 (Alice thinks in api-design, chose_silence) fine⏎{FORGED}"
    ]


def test_a_system_message_is_labelled_system():
    con = console()
    Transcript(con).on_message(FakeOffice(), message(SYSTEM, "Bob joined"))
    assert "system: Bob joined" in shown(con)


def test_the_conversation_header_is_printed_when_the_conversation_changes():
    con = console()
    transcript, office = Transcript(con), FakeOffice()
    transcript.on_message(office, message("alice", "one"))
    transcript.on_message(office, message("bob", "two", seconds=1))
    transcript.on_message(office, message("bob", "three", conversation="eng-casual", seconds=2))
    transcript.on_message(office, message("alice", "four", conversation="dm:alice:bob", seconds=3))
    out = shown(con)
    assert out.count("── API design [api-design]") == 1
    assert out.count("── Engineering casual [eng-casual]") == 1
    assert "── dm:alice:bob [dm:alice:bob]" in out  # unknown conversation: its id
    assert out.index("one") < out.index("two") < out.index("Engineering casual") < out.index("three")


def test_each_employee_keeps_one_colour_and_the_boss_is_bold_red():
    transcript = Transcript(console())
    first = transcript.colour("alice")
    assert transcript.colour("bob") != first
    assert transcript.colour("alice") == first
    assert transcript.colour(BOSS) == "bold red"


def record(**fields: Any) -> dict[str, Any]:
    base = {
        "at": (START + timedelta(seconds=42)).isoformat(),
        "employee": "alice",
        "conversation": "api-design",
        "spoke": False,
        "gate": "chose_silence",
        "thought": {"innerThoughts": "Bob covered it."},
    }
    return base | fields


def test_silent_thoughts_are_hidden_unless_asked_for():
    con = console()
    Transcript(con).on_thought(FakeOffice(), record())
    assert shown(con).strip() == ""


def test_a_silent_thought_shows_who_where_why_and_the_inner_monologue_literally():
    con = console()
    head = "[i]hmm[/i] \x1b]0;x\x07 "
    thought = {"innerThoughts": head + "z" * 500}
    Transcript(con, show_thoughts=True).on_thought(FakeOffice(), record(thought=thought, gate="cooldown"))
    out = shown(con)
    assert out.startswith("09:00:42 (Alice thinks in api-design, cooldown) [i]hmm[/i] \\x1b]0;x\\x07 ")
    assert out.count("z") == 300 - len(head)  # the monologue is cut to 300 chars


def test_a_silent_thought_is_shown_at_the_moment_it_landed_as_messages_are():
    con = console()
    landed = {"applied": {"at": (START + timedelta(seconds=47)).isoformat()}}
    Transcript(con, show_thoughts=True).on_thought(FakeOffice(), record(**landed))
    assert shown(con).startswith("09:00:47 (Alice thinks in api-design, chose_silence)")


def test_show_thoughts_prints_messages_and_silences_in_time_order(tmp_path) -> None:
    run = next(r for r in RUNS if r.name == "startup-s1")
    result = CliRunner().invoke(app, [*run.args(tmp_path / "run"), "--show-thoughts"], env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    stamped = [line for line in result.output.splitlines() if re.match(r"\d\d:\d\d:\d\d ", line)]
    assert sum(" thinks in " in line for line in stamped) >= 10  # the silences are there
    times = [line[:8] for line in stamped]
    assert times == sorted(times), next(
        f"{a} then {b}" for a, b in zip(stamped, stamped[1:], strict=False) if b[:8] < a[:8]
    )


def _tool(tool: str, message: str, ok: bool = True) -> dict[str, Any]:
    return {"step": "tool", "tool": tool, "ok": ok, "message": message}


def test_the_work_a_thought_did_is_a_line_at_the_moment_it_landed():
    con = console()
    steps = [
        _tool("write_document", "wrote docs/release-notes.md (version 150429f2)"),
        _tool("request_review", "asked Bob to review docs/release-notes.md"),
        _tool("read_document", "read docs/plan.md"),  # changes nothing: no line
        _tool("review", "rejected docs/x.md", ok=False),  # refused: no line
        _tool("send_message", "sent to eng-casual"),
    ]
    landed = {"at": (START + timedelta(seconds=50)).isoformat(), "steps": steps}
    Transcript(con).on_thought(FakeOffice(), record(spoke=True, gate=None, applied=landed))
    assert shown(con).splitlines() == [
        "09:00:50 ✎ Alice wrote docs/release-notes.md (version 150429f2)",
        "09:00:50 ✎ Alice asked Bob to review docs/release-notes.md",
    ]


def test_a_sign_off_and_a_message_after_work_name_their_room():
    con = console()
    transcript, office = Transcript(con), FakeOffice()
    transcript.on_message(office, message("alice", "Done.", seconds=10))
    signed = {
        "at": (START + timedelta(seconds=20)).isoformat(),
        "steps": [_tool("sign_off", "requirement req-1 approved by the boss")],
    }
    transcript.on_thought(office, record(spoke=True, gate=None, applied=signed))
    transcript.on_message(office, message("bob", "Great.", seconds=30))
    assert shown(con).splitlines() == [
        "── API design [api-design]",
        "09:00:10 Alice: Done.",
        "09:00:20 ✎ Alice requirement req-1 approved by the boss",
        "── API design [api-design]",
        "09:00:30 Bob: Great.",
    ]


def test_a_spoken_thought_is_not_repeated_as_a_thought_line():
    con = console()
    Transcript(con, show_thoughts=True).on_thought(FakeOffice(), record(spoke=True, gate=None))
    assert shown(con).strip() == ""


def test_a_failed_thought_shows_its_error():
    con = console()
    Transcript(con, show_thoughts=True).on_thought(
        FakeOffice(), record(thought=None, gate="error", error="timeout")
    )
    assert "(Alice thinks in api-design, error) timeout" in shown(con)


def test_the_progress_bar_follows_simulated_time_and_counts():
    con = console()
    transcript, office = Transcript(con), FakeOffice()
    progress = transcript.start_progress(START, START + timedelta(hours=1))
    office.clock.at = START + timedelta(minutes=15)
    office.stats.thoughts, office.stats.messages, office.stats.llm_calls = 7, 3, 8
    transcript.on_thought(office, record())
    task = progress.tasks[0]
    assert task.total == 3600 and task.completed == 900
    assert task.fields["now"] == "09:15" and task.fields["end"] == "10:00"
    assert task.fields["stats"] == "7 thoughts · 3 messages · 8 calls"


# --------------------------------------------------------------------------- closing table


def test_the_summary_table_shows_names_literally_and_totals():
    office = FakeOffice(names={"alice": "[red]Alice[/red]\x1b[5m", "bob": "Bob"})
    row = {
        "thoughts": 4,
        "spoke": 1,
        "silent": 3,
        "messages": 1,
        "prompt_tokens": 900,
        "completion_tokens": 120,
    }
    summary = {
        "simulated_time": "1h00m",
        "wall_time_s": 12.4,
        "by_employee": {"alice": row, "bob": row | {"spoke": 2, "silent": 2}},
        "thoughts": 8,
        "messages": 3,
        "llm": {"prompt_tokens": 1800, "completion_tokens": 240},
    }
    con = console()
    con.print(summary_table(office, summary))
    out = shown(con)
    assert "Acme Labs: 1h00m simulated in 12 s" in out
    for company in ("Acme [/x]", "Acme [link=http://evil.example]Labs[/link]", "[bold]Acme\x1b[5m"):
        con = console()
        con.print(summary_table(FakeOffice(company=company), summary))  # no MarkupError
        styled = con.export_text(styles=True)
        assert safe_text(company) in styled and "\x1b]8;" not in styled  # as typed; no live hyperlink
    assert "[red]Alice[/red]\\x1b[5m" in out and "\x1b[5m" not in out
    total = next(row for row in out.splitlines() if "total" in row)
    assert [cell.strip() for cell in total.split("│")[1:-1]] == ["total", "8", "3", "5", "3", "1800", "240"]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0m00s"), (59, "0m59s"), (125, "2m05s"), (3600, "1h00m"), (3725, "1h02m"), (7 * 3600 + 59, "7h00m")],
)
def test_format_duration(seconds, text):
    assert format_duration(timedelta(seconds=seconds)) == text


def test_the_summary_table_has_rows_for_who_exists_and_its_totals_add_up():
    office = FakeOffice(names={"alice": "Alice", "secretary": "Secretary"})
    quiet = dict.fromkeys(
        ("thoughts", "spoke", "silent", "messages", "prompt_tokens", "completion_tokens"), 0
    )
    row = quiet | {
        "thoughts": 2,
        "spoke": 1,
        "silent": 1,
        "messages": 1,
        "prompt_tokens": 50,
        "completion_tokens": 9,
    }
    summary = {
        "simulated_time": "0:30:00",
        "wall_time_s": 1.0,
        "by_employee": {"alice": row, "secretary": quiet},
        "messages_by_sender": {"boss": 2, "alice": 1},
        "thoughts": 2,
        "messages": 3,
        "llm": {"prompt_tokens": 50, "completion_tokens": 9},
    }
    con = console()
    con.print(summary_table(office, summary))
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in shown(con).splitlines() if "│" in line]
    body = [r for r in rows if r and r[0] not in ("employee", "total")]
    assert [r[0] for r in body] == ["Alice", "Boss"]  # no all-zero secretary row; the boss's lines shown
    total = next(r for r in rows if r and r[0] == "total")
    assert int(total[4]) == sum(int(r[4]) for r in body) == 3
