"""Issue 36, item 8: an `@` that names nobody but begins with someone's name is told to the boss.

The boundary rule stays (a name followed by a letter, mark, digit or `_` is no mention, so
`@調査担当者` never reaches `@調査担当`, and `alice@example.com` is an address); `near_misses` finds
the `@` words it turned away that begin with a name, or that a word of a script written without
spaces runs into (`你好@张伟`), so the chat can say how to write the mention.
"""

from __future__ import annotations

import pytest

from ideaco.office.rules.mentions import NearMiss, near_misses, parse_mentions

PEOPLE = {
    "zhangwei": "张伟",
    "lina": "李娜",
    "chousa": "調査担当",
    "alice": "Alice",
    "bob": "Bob",
    "bobby": "Bobby",
    "old-joe": "Old Joe",
    "ram": "राम",
    "somchai": "สมชาย",
    "ivan": "Иван",
    "minjun": "민준",
    "jose": "Jose",
}


@pytest.mark.parametrize(
    ("text", "written", "suggestion"),
    [
        ("@张伟你好", "@张伟你好", "@张伟 你好"),
        ("@李娜请看一下接口文档。", "@李娜请看一下接口文档", "@李娜 请看一下接口文档"),
        ("@調査担当者、お願いします", "@調査担当者", "@調査担当 者"),
        ("@Alicehi", "@Alicehi", "@Alice hi"),
        ("@alicehi there", "@alicehi", "@alice hi"),  # the name as the boss spelled it
        ("@Bob2 is late", "@Bob2", "@Bob 2"),
        ("@Bobbyx", "@Bobbyx", "@Bobby x"),  # the longest name that runs on
        ("@Old Joey, hi", "@Old Joey", "@Old Joe y"),  # a name with a space
        ("@रामनमस्ते", "@रामनमस्ते", "@राम नमस्ते"),  # Hindi: the vowel signs stay in their words
        ("@สมชายสวัสดีครับ", "@สมชายสวัสดีครับ", "@สมชาย สวัสดีครับ"),  # Thai
        ("@Иванпривет!", "@Иванпривет", "@Иван привет"),  # Cyrillic
        ("@민준님 확인 부탁해요", "@민준님", "@민준 님"),  # Korean
        # A word of a script written without spaces runs into the `@`: no boundary before it.
        ("你好@张伟", "你好@张伟", "你好 @张伟"),
        ("请看@李娜，谢谢", "请看@李娜", "请看 @李娜"),
        ("你好@张伟你好", "你好@张伟你好", "你好 @张伟 你好"),
        ("お願い@調査担当", "お願い@調査担当", "お願い @調査担当"),  # Japanese
        ("ครับ@สมชาย", "ครับ@สมชาย", "ครับ @สมชาย"),  # Thai, its vowel marks in the word before
    ],
)
def test_an_at_word_that_runs_on_from_a_name_is_a_near_miss(text: str, written: str, suggestion: str) -> None:
    assert parse_mentions(text, PEOPLE, list(PEOPLE)) == ()  # the boundary rule holds
    [miss] = near_misses(text, PEOPLE)
    assert (miss.written, miss.suggestion) == (written, suggestion)
    assert miss.hint == f"{written} names nobody here; write {suggestion}"


@pytest.mark.parametrize(
    "text",
    [
        "@张伟 你好",  # a mention: nothing to tell
        "@张伟，你好",  # full-width punctuation ends a name
        "@李娜。",
        "@調査担当、お願いします",
        "@Alice hi",
        "@Alice's idea",
        "@Bobby hi",  # Bobby is someone: not Bob run on
        "@Old Joe, hi",
        "@राम नमस्ते",
        "@สมชาย สวัสดีครับ",
        "@Иван, привет",
        "@민준 님",
        "@Jose\u0301 hi",  # a mark on the last letter: another name (José), not a run-on
        "@nobody here",  # names nobody and begins with nobody's name
        "@allhands at 5",  # @all running on is a word
        "mail alice@Alicehi.com",  # not at a boundary: an address
        "mail bob@alice.com",  # a Latin word before the `@`: an address, even of a name here
        "привет@Иван",  # Cyrillic is written with spaces: an address-like word, not a near-miss
        "नमस्ते@राम",  # so is Devanagari
        "你好 @张伟",  # a mention
        "你好@nobody",  # runs into a name of nobody
        "see https://x.org/@Alicehi",
        "`@Alicehi` in code",
        'he wrote "@Alicehi" once',  # quoted
        "「@张伟你好」と書いた",
        "> @张伟你好",
        "",
        "@",
    ],
)
def test_no_near_miss(text: str) -> None:
    assert near_misses(text, PEOPLE) == ()


def test_a_full_mention_at_the_same_at_wins_over_a_longer_name_that_runs_on() -> None:
    people = {"ana": "Ana", "analima": "Ana Lima"}
    assert parse_mentions("@Ana Limahi", people, list(people)) == ("ana",)
    assert near_misses("@Ana Limahi", people) == ()


def test_several_near_misses_in_order_beside_a_real_mention() -> None:
    text = "@张伟你好 @李娜 and @Alicehi"
    assert parse_mentions(text, PEOPLE, list(PEOPLE)) == ("lina",)
    assert [m.written for m in near_misses(text, PEOPLE)] == ["@张伟你好", "@Alicehi"]


def test_an_id_counts_like_a_name() -> None:
    assert near_misses("@zhangwei2", PEOPLE) == (NearMiss("@zhangwei2", "zhangwei", "2"),)


def test_nobody_on_the_roster_means_no_near_miss() -> None:
    assert near_misses("@张伟你好", {}) == ()
