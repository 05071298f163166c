"""The one gate for names and ids (issue 22): what a person, a room or a department may be called."""

from __future__ import annotations

import pytest

from ideaco.bounds import check_new_id, check_person_name, check_place_id, one_paragraph


@pytest.mark.parametrize(
    "name",
    [
        "Alice",
        "Mary-Jane O'Neil",
        "José",
        "Zoë Wang",
        "李雷",
        "Bossa Nova",
        "Systematic Sam",
        "Allie",
        "Dr. Ng",
        "Sam",  # its skeleton is "sarn": only another name that looks so is refused beside it
        "Анна",
        "Łukasz Ørsted",
        "Ιωάννης",
    ],
)
def test_a_person_may_be_called_by_any_ordinary_name(name: str) -> None:
    assert check_person_name(name) == name


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Boss", "is reserved"),
        ("boss", "is reserved"),
        ("ＢＯＳＳ", "is reserved"),  # full-width letters: NFKC folds them
        # Issue 28, item 22: another script's look-alikes, which NFKC leaves (TS #39's skeleton).
        ("B\u043e\u0455\u0455", "is reserved"),  # Latin B, Cyrillic o, dze, dze
        ("\u0412\u043e\u0455\u0455", "is reserved"),  # all Cyrillic
        ("\u0391\u0399\u0399", "mention keyword"),  # Greek Alpha, Iota, Iota: "AII" looks like "All"
        ("S\u0443stem Jones", "'system' is the system's title"),  # Cyrillic u
        ("The B\u03bfss", "'boss' is the boss's title"),  # Greek omicron
        ("Ann \u2768x\u2769", "contains '('"),  # ornamental parentheses
        ("All", "mention keyword"),
        ("Everyone", "mention keyword"),
        ("Secretary", "the secretary's name"),
        ("Boss (BOSS)", "'boss' is the boss's title"),
        ("System:", "'system' is the system's title"),
        ("The Boss", "'boss' is the boss's title"),
        ("Secretary Jones", "'secretary' is the secretary's title"),
        ("Bob (you)", "contains '('"),
        ("Eve: hi", "contains ':'"),
        ("@Alice", "contains '@'"),
        ("★ Ann", "contains '★'"),
        ("Ann\nBoss", "U+000A"),
        ("Ann\u202eBoss", "U+202E"),
        ("Ann\u2028Boss", "U+2028"),
        (" Ann", "starts or ends with a space"),
    ],
)
def test_a_person_is_not_called_by_a_role_a_keyword_or_a_transcript_mark(name: str, why: str) -> None:
    with pytest.raises(ValueError, match="^.*$") as caught:
        check_person_name(name)
    message = str(caught.value)
    assert why in message and "\n" not in message and message.startswith(repr(name))


@pytest.mark.parametrize(
    "ident",
    ["boss", "System", "secretary", "all", "req-1", "req-42", "boss-chat-bob", "dm-bob", "group-chat-x"],
)
def test_a_place_id_the_engine_makes_or_reads_as_an_alias_is_reserved(ident: str) -> None:
    with pytest.raises(ValueError, match="is reserved"):
        check_place_id(ident)
    with pytest.raises(ValueError, match="is reserved"):
        check_new_id(ident, set(), "the room")


@pytest.mark.parametrize("ident", ["launch", "req-one", "requirements", "bossa", "dmz", "eng-casual"])
def test_ordinary_place_ids_pass(ident: str) -> None:
    assert check_place_id(ident) == ident
    assert check_new_id(ident, {"other"}, "the room") == ident


def test_a_new_id_is_not_one_already_taken() -> None:
    with pytest.raises(ValueError, match="the employee id 'bob' is already taken"):
        check_new_id("bob", {"bob", "launch"}, "the employee")


def test_prose_is_folded_into_one_line_and_still_refuses_controls() -> None:
    assert one_paragraph("Build it\n\n- fast\tand well") == "Build it - fast and well"
    with pytest.raises(ValueError, match=r"U\+001B"):
        one_paragraph("Build \x1b[2J it")
    assert one_paragraph(7) == 7  # not text: left to the field's own type check
