"""Spec 2.1/2.2: who a message @-mentions, and who a boss message addresses."""

from __future__ import annotations

import pytest

from ideaco.office.rules import addressed_by_boss, mask_code, named_in, parse_mentions

PEOPLE = {
    "alice": "Alice",
    "bob": "Bob",
    "bobby": "Bobby",
    "old-joe": "Old Joe",
    "zoe": "Zoë",
    "lin": "林小明",
}
MEMBERS = ["alice", "bob", "bobby", "old-joe"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("@Bob can you look?", ("bob",)),
        ("ping user@host now", ()),
        ("mail alice@example.com please", ()),
        ("(@Bob) agreed", ("bob",)),
        ("**@Alice** first", ("alice",)),
        ("see https://x.org/@bob", ()),  # a URL path, not a mention
        ("@Bobby and @Bob", ("bobby", "bob")),  # longest name first
        ("@Bob, @Bob: @Bob's idea", ("bob",)),  # trailing punctuation, duplicates once
        ("@Bob\u2019s idea", ("bob",)),
        ("@bob lowercase id", ("bob",)),
        ("@BOB shouting", ("bob",)),
        ("@Old Joe what do you think?", ("old-joe",)),
        ("@old-joe by id", ("old-joe",)),
        ("@Old Joey is nobody", ()),  # runs on into a letter: no match, not even a prefix
        ("@Bob2 is nobody", ()),
        ("@Bob_x is nobody", ()),
        ("@Zoë and @林小明 hi", ("zoe", "lin")),
        ("你好@林小明", ()),  # preceded by a letter: not at a boundary
        ("你好 @林小明。", ("lin",)),
        ("@Zoe\u0308 decomposed", ("zoe",)),  # same name in NFC
        ("@Bob\u0301 is nobody", ()),  # a combining mark continues the name
        ("`@Bob` is how you mention", ()),
        ("use ``code with ` and @Bob`` here, @Alice", ("alice",)),
        ("```\n@Bob in a fence\n```\n@Alice outside", ("alice",)),
        ("```python\nprint('@Bob')\n", ()),  # unclosed fence runs to the end
        ("a stray ` then @Bob", ("bob",)),  # an unclosed inline tick is literal
        ("@nobody here", ()),
        ("@", ()),
        ("email@", ()),
        ("@@Bob", ("bob",)),
        ("", ()),
        # Quoted text addresses nobody (reference 004, maskQuotedAndCode); the words around it do.
        ("> @Bob wrote this\n@Alice see above", ("alice",)),
        ("  > @Bob indented quote", ()),
        ("a > b, @Bob", ("bob",)),  # a `>` inside a line quotes nothing
        ('he said "@Bob will fix it", @Alice', ("alice",)),
        ("she wrote 'ask @Bob' so @Alice", ("alice",)),
        ("\u201c@Bob is out\u201d @Alice", ("alice",)),
        ("\u300c@Bob\u300d \u3068 @Alice", ("alice",)),
        ("don't wait, @Bob's call", ("bob",)),  # apostrophes open no quote
        ('a stray " then @Bob', ("bob",)),  # an unclosed quote is literal
        ('"line one\n@Bob" next', ("bob",)),  # a quote does not span lines
    ],
)
def test_parse_mentions(text: str, expected: tuple[str, ...]) -> None:
    assert parse_mentions(text, PEOPLE, MEMBERS) == expected


def test_bobby_without_a_bobby_is_no_mention_of_bob() -> None:
    only_bob = {"alice": "Alice", "bob": "Bob"}
    assert parse_mentions("@Bobby hi", only_bob, ["alice", "bob"]) == ()
    assert parse_mentions("@Bob hi", only_bob, ["alice", "bob"]) == ("bob",)


def test_longest_name_wins_when_the_shorter_one_ends_at_a_boundary() -> None:
    people = {"bob": "Bob", "bobs": "Bob Smith", "rev": "Review", "revr": "Reviewer"}
    members = list(people)
    assert parse_mentions("@Bob Smith, hi", people, members) == ("bobs",)
    assert parse_mentions("@Bob Jones, hi", people, members) == ("bob",)
    assert parse_mentions("@Reviewer and @Review", people, members) == ("revr", "rev")


@pytest.mark.parametrize("word", ["@all", "@everyone", "@ALL", "@Everyone"])
def test_all_and_everyone_expand_to_members_minus_sender(word: str) -> None:
    assert parse_mentions(f"{word} standup in 5", PEOPLE, MEMBERS, sender="bob") == (
        "alice",
        "bobby",
        "old-joe",
    )


def test_all_is_not_a_prefix_match() -> None:
    people = {"allison": "Allison", "bob": "Bob"}
    assert parse_mentions("@Allison hi", people, ["allison", "bob"]) == ("allison",)
    assert parse_mentions("@alls hi", people, ["allison", "bob"]) == ()


def test_order_of_first_appearance_with_expansion() -> None:
    got = parse_mentions("@Old Joe then @all then @Bob", PEOPLE, MEMBERS)
    assert got == ("old-joe", "alice", "bob", "bobby")


def test_sender_is_excluded() -> None:
    assert parse_mentions("@Alice @Bob", PEOPLE, MEMBERS, sender="alice") == ("bob",)


def test_non_members_named_are_returned() -> None:
    assert parse_mentions("@Zoë join us", PEOPLE, MEMBERS) == ("zoe",)


def test_mask_code_keeps_length_and_outside_text() -> None:
    text = "a `@b` c\n```\n@d\n```\ne"
    masked = mask_code(text)
    assert len(masked) == len(text)
    assert "@" not in masked
    assert masked.startswith("a ") and masked.endswith("e")


def test_boss_message_without_mentions_addresses_everyone() -> None:
    assert addressed_by_boss("REST or GraphQL?", PEOPLE, MEMBERS) == tuple(MEMBERS)


def test_boss_message_with_mentions_addresses_only_them() -> None:
    assert addressed_by_boss("@Alice and @Old Joe, a word", PEOPLE, MEMBERS) == ("alice", "old-joe")


def test_boss_message_with_everyone_addresses_all_members() -> None:
    assert addressed_by_boss("@everyone meeting", PEOPLE, MEMBERS) == tuple(MEMBERS)


def test_boss_mention_inside_a_quote_addresses_everyone() -> None:
    assert addressed_by_boss('> @Bob said "@Alice"\nthoughts?', PEOPLE, MEMBERS) == tuple(MEMBERS)


def test_boss_mention_inside_code_only_addresses_everyone() -> None:
    assert addressed_by_boss("type `@Bob` to ping", PEOPLE, MEMBERS) == tuple(MEMBERS)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Bob wants REST", {"bob"}),
        ("ask @bob", {"bob"}),
        ("what does bob think?", {"bob"}),  # case-insensitive
        ("Dana Li and Bob", {"bob", "dana"}),  # full name
        ("Dana's design", {"dana"}),  # first name with a possessive
        ("Bobby wants REST", set()),  # not a whole word
        ("the bobsleigh team", set()),
        ("`bob` is a variable", set()),  # code is an example, not a person
        ("How is the team?", set()),
    ],
)
def test_named_in_finds_colleagues_named_as_whole_words(text: str, named: set[str]) -> None:
    assert named_in(text, {"bob": "Bob", "dana": "Dana Li"}) == named
