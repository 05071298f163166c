"""Small-model hygiene (office/rules/text/hygiene.py): each rule the issue 36 cases moved, on both
sides, in several scripts; and `standard` holding the guarantees only."""

from __future__ import annotations

import pytest

from ideaco.cycle import TextRule
from ideaco.office.rules.text import GUARANTEE, HYGIENE, STANDARD, STRICT, check
from ideaco.office.rules.text.hygiene import GLUED, MAX_SYMBOLS, MIN_SYMBOLS, RUN


def rule(text: str) -> TextRule | None:
    verdict = check(text, filters=STRICT)
    return verdict.rule if verdict else None


@pytest.mark.parametrize(
    ("passes", "refused"),
    [
        # a run: one letter of an alphabet RUN times; a syllable repeated is laughter in any script
        ("S" + "o" * (RUN - 1) + " good", "S" + "o" * RUN + " good"),
        ("Д" + "а" * (RUN - 1) + " конечно", "Д" + "а" * RUN + " конечно"),
        ("Ναιιιι", "Ναιιιιι"),
        ("哈" * 9 + "，太真实了", "S" + "o" * 9),
        ("ㅋ" * 9, "a" * 9 + " ok"),
        ("5" * 9 + " ตลกมาก", "x" * 9 + " ok"),
        ("We hit 1000000 requests per day", "1.1.1.1.1.1"),
        # symbols: more than MAX_SYMBOLS of the characters, once there are MIN_SYMBOLS
        ("好的，收到！", "#$%^&*()!@#"),
        ("कल की मीटिंग सुबह दस बजे है।", "ok $$$ ###"),
        ("**Done**", "** $$ **"),
        ("ok~~", "ok~~~"),
        # brackets: a tag or an empty list is meant; a slot or debris is not
        ("[P0] Checkout is failing since 14:05 UTC.", "I am pleased with [service1]."),
        ("[Q3 plan] Draft is in the shared drive.", "Hi [Name2], welcome"),
        ("Let's ship it, done by [task-3] tomorrow.", "… but [meta-27]"),
        ("The endpoint returns [] when the filter matches nothing.", "[6] },{"),
        ("GET /api/v2/users/{id} now returns 404", "Hi {name}, welcome to {company}!"),
        ("POST /orders/{orderId}/refunds is live", "Hi {firstName}, welcome aboard!"),
        # angle brackets glued into prose
        ("It is a std::vector<std::vector<int>> and a >> b shifts.", "task123<<<I'm glad>>My answer"),
        ("Use << and >> with spaces around them.", "Create a task (<<*>>)"),
        # entities: an HTML entity is debris, capitals and an ampersand are a company's words
        ("T&Cs: updated per legal's notes.", "Fish &amp; chips"),
        ("R&D and M&A both want the room.", "Great job&right: let's go"),
        # the answer format's fields, not English that shares their words
        ("Memory ops on ARM are about 2x slower.", "Let me add some memoryOps first."),
        ("Task ops in the scheduler are batched.", "What can be said about how task Op is done?"),
        # no word: a reply of one letter or punctuation is a reply; digits and brackets are not
        ("k", "249358716"),
        ("?", "}]{["),
        ("...", "18-09:56A"),
        ("好", "---"),
        ("네", "http://www."),
        (":)", "#$%"),  # an emoticon is a reply
        ("^^", "}]{["),
        ("¯\\_(ツ)_/¯", "ok $$$ ###"),
        ("555", "249358716"),  # Thai laughter; other digits are no word
        ("v1 -> v2", "18-09:56A"),  # a letter and its number is a word
        # a comparison or an arrow is no bracket of a fragment; a tag's start is
        ("C++ > Rust? 🤔", "C++ <li Rust"),
        ("=> done", "[done"),
        # words glued together: GLUED Latin letters with no space (a long compound is shorter)
        ("Donaudampfschifffahrtsgesellschaft", "whatyoufindorovertheprojectisdonetoanotherperson"),
        ("Supercalifragilisticexpialidocious!", "ok " + "abcdefghi" * 4),
        ("ok " + ("abcdefghijklm" * 3)[: GLUED - 1], "ok " + ("abcdefghijklm" * 3)[:GLUED]),
        # broken off short of its bound: an article, a possessive, a conjunction or a comma last
        ("The plan is set.", "The"),
        ("We go with plan A", "Sure, the"),
        ("Rock and roll", "We cut the share feature and"),
        ("好的，收到", "好的，"),
        ("Thanks, Ana", "2-50 (active mood),"),
        ("Fix `a,` in the CSV header", "Your"),
    ],
)
def test_each_rule_on_both_sides(passes: str, refused: str) -> None:
    assert rule(passes) is None, check(passes)
    assert rule(refused) in (
        TextRule.DEGENERATE,
        TextRule.PLACEHOLDER,
        TextRule.PROMPT_ECHO,
        TextRule.UNFINISHED,
    )


def test_the_thresholds_are_the_named_constants() -> None:
    assert (RUN, MIN_SYMBOLS, MAX_SYMBOLS, GLUED) == (5, 3, 0.3, 36)


@pytest.mark.parametrize(
    "text", ["Hi {name}, welcome!", "Sooooooo good", "#$%^&*()!@#", "What you say here...", "}}}}]]]] ok"]
)
def test_standard_shows_what_only_hygiene_refuses(text: str) -> None:
    verdict = check(text, filters=STRICT)
    assert verdict is not None and verdict.kind == HYGIENE
    assert check(text, filters=STANDARD) is None


def test_the_thoughts_own_text_is_a_guarantee_under_both_settings() -> None:
    inner = "ship it now please team"
    for filters in (STRICT, STANDARD):
        verdict = check("ship it now please", filters=filters, inner_thoughts=inner)
        assert verdict is not None and (verdict.rule, verdict.kind) == (TextRule.LEAKED_THOUGHT, GUARANTEE)
        assert check("ship it now", filters=filters, inner_thoughts=inner) is None
