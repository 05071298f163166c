"""`ideaco.ids`: the boss chat's id built and read back in one place; one resolver of employee refs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ideaco.cli.chat_commands import CommandError, resolve_employee
from ideaco.cli.errors import UserError
from ideaco.cli.inspect import _resolve as inspect_resolve
from ideaco.cli.interview import _resolve as interview_resolve
from ideaco.ids import (
    MESSAGE,
    THOUGHT,
    boss_chat_owner,
    boss_conversation_id,
    dm_conversation_id,
    dm_members,
    id_hint,
    post_id,
    resolve_id,
    script_line_id,
    script_line_number,
    sent_id,
    serial_id,
    serial_number,
    slug,
    thought_of,
    unique_id,
)
from ideaco.office.decide.tools.org import Refused, _employee


@pytest.mark.parametrize("employee", ["alice", "secretary", "dan-2", "a:b"])
def test_a_boss_chat_id_reads_back_as_its_employee(employee):
    assert boss_conversation_id(employee) == f"boss:{employee}"
    assert boss_chat_owner(boss_conversation_id(employee)) == employee


@pytest.mark.parametrize("conversation", ["boss", "general", "dm:alice:bob", "bossy:alice", "Boss:alice"])
def test_any_other_id_has_no_boss_chat_owner(conversation):
    assert boss_chat_owner(conversation) is None


# `resolve_id` replaced five resolvers that disagreed: chat commands and the secretary's tools took
# the first match in office order, `inspect` called an id-and-name clash ambiguous, `interview`
# called any ambiguity "no employee", and only chat and the tools took "@name" or spaces.
PEOPLE = {"sam": "Max", "max": "Max Power", "lee1": "Lee Ray", "lee2": "Lee Ray", "alice": "Alice"}


@pytest.mark.parametrize(
    ("ref", "found"),
    [
        ("alice", "alice"),
        ("ALICE", "alice"),
        ("Alice", "alice"),
        ("@alice", "alice"),  # inspect, interview and relationship ops found none
        (" Alice ", "alice"),  # inspect and interview found none
        ("Max", "max"),  # an id beats another's name: chat and the tools took "sam" (first in order)
        ("max power", "max"),
        ("lee ray", ["lee1", "lee2"]),  # chat and the tools took lee1; interview said "no employee"
        ("bob", None),
        ("", None),
    ],
)
def test_one_resolver_for_every_surface(ref, found):
    assert resolve_id(ref, PEOPLE) == found


def _surfaces(ref: str) -> dict[str, object]:
    """What each surface makes of `ref` among PEOPLE: an id, or the kind of its refusal."""
    office = SimpleNamespace(employees={i: SimpleNamespace(id=i, name=n) for i, n in PEOPLE.items()})
    org = SimpleNamespace(
        employees={i: SimpleNamespace(id=i, name=n, dismissed=False) for i, n in PEOPLE.items()}
    )
    calls = {
        "chat": lambda: resolve_employee(office, ref),
        "tools": lambda: _employee(org, ref).id,
        "inspect": lambda: inspect_resolve("--employee", ref, PEOPLE, "an employee"),
        "interview": lambda: interview_resolve(ref, PEOPLE),
    }
    out: dict[str, object] = {}
    for surface, call in calls.items():
        try:
            out[surface] = call()
        except (CommandError, Refused, UserError) as exc:
            out[surface] = "ambiguous" if "any of" in str(exc) or "ambiguous" in str(exc) else "unknown"
    return out


@pytest.mark.parametrize(
    ("ref", "answer"),
    [("Max", "max"), ("@alice", "alice"), (" Alice ", "alice"), ("lee ray", "ambiguous"), ("bob", "unknown")],
)
def test_chat_the_tools_inspect_and_interview_agree(ref, answer):
    assert _surfaces(ref) == dict.fromkeys(("chat", "tools", "inspect", "interview"), answer)


def test_a_dm_id_is_sorted_and_reads_back_as_its_two_members():
    assert dm_conversation_id("bob", "alice") == dm_conversation_id("alice", "bob") == "dm:alice:bob"
    assert dm_members(dm_conversation_id("bob", "alice")) == ["alice", "bob"]
    assert dm_members("boss:alice") is None and dm_members("design") is None


# Issue 36, item 6: ids from names in any script, ASCII and readable.
@pytest.mark.parametrize(
    ("name", "made"),
    [
        ("QA & Test", "qa-test"),
        ("张伟", "zhangwei"),
        ("产品部", "chanpinbu"),
        ("José", "jose"),
        ("Łukasz", "lukasz"),
        ("Дмитрий", "dmitriy"),
        ("さくら", "sakura"),
        ("김민준", "gimminjun"),
        ("प्रिया", "priya"),  # the vowel sign is part of the name
        ("Ｂｏｂ", "bob"),  # full width: NFKC
        ("🚀 Growth", "growth"),  # an emoji's name is no part of an id
        ("!!!", ""),
        ("", ""),
    ],
)
def test_a_name_in_any_script_makes_an_ascii_id(name, made):
    assert slug(name) == made
    assert made == "" or made.isascii() and made == made.lower()


@pytest.mark.parametrize(
    ("taken", "made"),
    [(set(), "zhangwei"), ({"zhangwei"}, "zhangwei-2"), ({"zhangwei", "zhangwei-2"}, "zhangwei-3")],
)
def test_a_taken_id_gets_the_first_free_suffix(taken, made):
    assert unique_id("zhangwei", lambda ident: ident not in taken) == made


def test_a_bad_id_says_what_an_id_holds_and_offers_one_made_of_it():
    said = id_hint("产品部")
    assert "an id holds ASCII letters, digits" in said and "'chanpinbu' would do" in said
    assert "would do" not in id_hint("★")  # nothing to offer


def test_the_ids_the_office_counts_out_and_a_thoughts_own_lines() -> None:
    from ideaco.ids import MESSAGE, THOUGHT, notice_id, post_id, sent_id, serial_id, signoff_id

    assert (serial_id(THOUGHT, 1), serial_id(MESSAGE, 42)) == ("t000001", "m000042")
    assert [f("t000007", 2) for f in (post_id, sent_id, notice_id)] == [
        "t000007-2",
        "t000007-a2",
        "t000007-n2",
    ]
    assert (notice_id("t000007", 0), signoff_id("t000007")) == ("t000007-n0", "t000007-signoff")


# --- the ids the office counts out, built and read back in one place ----------------------------


def test_a_counted_id_reads_back_as_its_number_and_only_for_its_own_kind() -> None:
    assert serial_number(serial_id(THOUGHT, 12), THOUGHT) == 12
    assert serial_number(serial_id(MESSAGE, 3), MESSAGE) == 3
    assert serial_number(serial_id(THOUGHT, 12), MESSAGE) is None  # a thought's id is no message's
    assert script_line_number(script_line_id(0)) == 1 and script_line_number("script-12") == 12


@pytest.mark.parametrize(
    "ident",
    ["t", "t12a", "t-12", "t١٢", "t１２", "script-", "script-٣", "m000003", None, "", "fork-1"],
)
def test_anything_else_reads_as_no_number(ident) -> None:
    # Other digits (Arabic-Indic, full-width) and other prefixes are no engine id.
    assert serial_number(ident, THOUGHT) is None
    assert script_line_number(ident) is None


def test_a_thoughts_own_lines_name_the_thought() -> None:
    assert thought_of(post_id("t000012", 1)) == "t000012" == thought_of(sent_id("t000012", 2))
    assert serial_number(thought_of("script-3"), THOUGHT) is None  # a script line is no thought's
    assert thought_of(None) == ""
