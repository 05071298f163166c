"""What a draft must not be (office/rules/text/, under strict), each filter on both sides of its threshold."""

from __future__ import annotations

from functools import partial

import pytest

from ideaco.cycle import TextRule
from ideaco.mind.prompt import CUT, EngineText
from ideaco.office.rules.text import STRICT, check, finish, name_ids
from ideaco.office.rules.text.guarantees import SHINGLE, THOUGHT_OVERLAP
from ideaco.office.rules.text.hygiene import FIXED_SHINGLE, MAX_SYMBOLS, RUN

check_text = partial(check, filters=STRICT)  # a draft, as the embedded model's run checks it


def rule(text: str, **kw: object) -> TextRule | None:
    verdict = check_text(text, **kw)  # type: ignore[arg-type]
    return verdict.rule if verdict else None


@pytest.mark.parametrize(
    "text",
    [
        "Pine Notes 1.0 launches in two weeks!",
        "Boss(XA), I'm glad to see you are back on the planet of Pixel & Pine.",
        "OK",
        "No.",
        '"Sure"',
        "Let's ship it, done by [task-3] tomorrow.",
        "Noted in [mem-2], and v2 [beta] is out.",
        "hahahaha that's funny",
        "@Ana can you check https://example.com/status before lunch?",
        "I'd keep it simple: REST now, GraphQL later.",
    ],
)
def test_ordinary_messages_pass(text: str) -> None:
    assert check_text(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Your private thoughts (never shown) on the topic you are asked about.", TextRule.PROMPT_ECHO),
        ("What have I been doing that is not working? Why?", TextRule.PROMPT_ECHO),
        ("I will check the shouldSpeak flag", TextRule.PROMPT_ECHO),
        ("[insert message here]", TextRule.PLACEHOLDER),
        ("{insert message here}", TextRule.PLACEHOLDER),
        ("Welcome to [company_name]!", TextRule.PLACEHOLDER),
        ("Hi [insert other name], welcome", TextRule.PLACEHOLDER),
        ("[<message_info>] Your team is launching", TextRule.PLACEHOLDER),
        ("{{ name }} says hi", TextRule.PLACEHOLDER),
        ("I am pleased with all of your services, including [service1].", TextRule.PLACEHOLDER),
        ("What you think of [task 1] team lunch?", TextRule.PLACEHOLDER),
        ("What you think of the people here? Great.", TextRule.PROMPT_ECHO),  # a heading made in code
        ("Nice, what you found or did matters.", TextRule.PROMPT_ECHO),  # the tasks block's hint
        ("Here is what you say here, in plain words.", TextRule.PROMPT_ECHO),  # the compact format
        ("http://www.", TextRule.DEGENERATE),
        ("[6] },{", TextRule.DEGENERATE),
        ("25% of your staff delivers...}},{'topicSaturation':6}]}", TextRule.DEGENERATE),
        ("1.1.1.1.1.1", TextRule.DEGENERATE),
        ("[of", TextRule.DEGENERATE),
    ],
)
def test_what_a_weak_model_writes_is_refused_with_its_rule(text: str, expected: TextRule) -> None:
    assert rule(text) == expected


def test_an_echo_is_five_words_of_the_fixed_wording_not_four() -> None:
    assert FIXED_SHINGLE == 5
    assert rule("Only the boss can give orders here, right?") == TextRule.PROMPT_ECHO  # 5 words of the rules
    assert rule("Only the boss can decide that.") is None  # 4
    assert rule("What you found or did") == TextRule.PROMPT_ECHO  # the resolve hint's example, as posted
    assert rule("What you found there, did it help?") is None


def test_an_echo_is_six_words_in_a_row_of_the_engines_text_in_the_prompt_not_five() -> None:
    assert SHINGLE == 6
    quiet = EngineText("The room has been quiet for a while; you may start a topic.")
    assert rule("Fine.", prompt=quiet) is None
    assert rule("The room has been quiet lately.", prompt=quiet) is None  # 5 words of the note
    assert rule("The room has been quiet for ages.", prompt=quiet) == TextRule.PROMPT_ECHO  # 6


def test_symbols_must_stay_a_small_part_of_the_text() -> None:
    assert MAX_SYMBOLS == 0.3
    assert rule("alice at 09:00:12, v2.3.1 out") is None  # digits and sentence punctuation are text
    assert rule("abcdefg #@%") is None  # 3 symbols in 10 characters: 0.3
    assert rule("abcdef #@%^") == TextRule.DEGENERATE  # 4 in 10: 0.4


def test_a_run_is_five_of_one_character() -> None:
    assert RUN == 5
    assert rule("Soooo good") is None  # four o's
    assert rule("Sooooo good") == TextRule.DEGENERATE  # five
    assert rule("Wait..... what") is None  # punctuation runs are speech


def test_the_thoughts_own_inner_text_is_not_posted() -> None:
    assert THOUGHT_OVERLAP == 0.6
    inner = "I think Bob is wrong about the cache and should test it first"
    assert rule("I think Bob is wrong about the cache", inner_thoughts=inner) == TextRule.LEAKED_THOUGHT
    # Three words of five shared as a prefix: 0.6 -> refused; two of five: 0.4 -> fine.
    assert rule("I think Bob needs coffee", inner_thoughts=inner) == TextRule.LEAKED_THOUGHT
    assert rule("I think we should test", inner_thoughts=inner) is None


@pytest.mark.parametrize(
    ("length", "cut"),
    [(78, False), (79, True), (80, True), (81, False)],
)
def test_a_draft_is_cut_back_to_its_last_sentence_only_when_it_ran_into_its_bound(
    length: int, cut: bool
) -> None:
    text = ("We ship Friday. " + "x" * 200)[:length]
    done = finish(text, 80)
    assert done == ("We ship Friday." if cut else text.strip())


def test_a_draft_that_ran_into_its_bound_with_no_sentence_end_is_unfinished() -> None:
    assert finish("words " * 20, 120) is None
    assert finish("Done. And then", 14) == "Done."


def test_the_end_of_a_draft_is_no_echo_when_it_is_shorter_than_a_shingle() -> None:
    note = EngineText("The room has been quiet for a while.")
    assert rule("Been quiet for a while.", prompt=note) is None  # its last five words, not six
    assert rule("It has been quiet for a while.", prompt=note) == TextRule.PROMPT_ECHO


@pytest.mark.parametrize(
    "text",
    ["👍\ufe00", "👍\ufe0f", "👍\U0001f3fb", "👍\U0001f3ff"],  # each end of the selectors and skin tones
)
def test_emoji_with_the_first_and_last_selector_and_skin_tone_are_a_reply(text: str) -> None:
    assert check_text(text) is None


def test_what_the_thought_said_is_given_by_name() -> None:
    with pytest.raises(TypeError):
        check_text("ship it now please", "ship it now please team")  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I will finish [task] by [time]", TextRule.PLACEHOLDER),
        ("Moved to [Date].", TextRule.PLACEHOLDER),  # capitalised
        ("Sent at [date/time] to [recipient].", TextRule.PLACEHOLDER),  # two joined
        ("[topic] first, then lunch", TextRule.PLACEHOLDER),
        ("Moved to [DATE] in the log.", None),  # capitals: a tag
        ("The [beta] flag is on.", None),  # not a slot word
        ("Read [details](https://example.com/d) first.", None),  # a Markdown link
        ("Check items[item] in the loop.", None),  # an index
        ("The [task]s are done.", None),  # a word goes on past the bracket
        ("The format prints [time] first.", None),  # a message about code means it
        ("- [x] tests\n- [ ] docs", None),  # a checkbox at a line's start
        ("Hi [x], welcome", TextRule.PLACEHOLDER),  # not at a line's start
    ],
)
def test_one_word_slots_are_placeholders_and_meant_brackets_are_not(
    text: str, expected: TextRule | None
) -> None:
    assert rule(text) == expected


# --------------------------------------------------------------------------- the engine's words in a think's prompt
STALLED = EngineText(
    "[system] Your task [task-1] has not moved for three thoughts. Tell the boss where it stands "
    "and what blocks it.",
    people=("Create the launch plan",),
)
REPORTED = EngineText(
    "[system] Your task [task-1] 'Write the release notes for Pine Notes 2.0' is done. Result: done by Maya. "
    "Report it here in your own words.",
    people=("Write the release notes for Pine Notes 2.0", "done by Maya"),
)


def test_a_note_the_engine_wrote_is_an_echo_from_six_words_in_a_row() -> None:
    said = "My task 'Create the launch plan' has not moved for three thoughts."
    assert rule(said, prompt=STALLED) == TextRule.PROMPT_ECHO  # 6: has not moved for three thoughts
    assert rule("It has not moved for three days, sorry.", prompt=STALLED) is None  # 5
    assert rule(said) is None  # the note is no fixed wording: only the prompt that showed it counts


def test_a_value_quoted_whole_is_two_words_of_the_notes_run() -> None:
    """The note's frame around a task's description is the engine's: the description, quoted whole
    (its id named as name_ids names it), counts as two words of the run however long it is."""
    copied = "Your task 'Write the release notes for Pine Notes 2.0' is done, Maya says."
    assert rule(copied, prompt=REPORTED) == TextRule.PROMPT_ECHO  # your task '…' is done: 2 + 2 + 2
    assert (
        rule("'Write the release notes for Pine Notes 2.0' is done, Maya says.", prompt=REPORTED) is None
    )  # 4
    report = "Report: 'Write the release notes for Pine Notes 2.0' is finished."
    assert rule(report, prompt=REPORTED) is None  # '…' is: three
    said = "Your task [task-1] 'Write the release notes for Pine Notes 2.0' is done. Result: done by Maya."
    named = name_ids(said, {"task-1": "Write the release notes for Pine Notes 2.0"})  # the value twice: one
    assert rule(named, prompt=REPORTED) == TextRule.PROMPT_ECHO


def test_the_values_a_prompt_shows_alone_are_their_writers_words() -> None:
    own = "I wrote the release notes for Pine Notes 2.0 today."
    assert rule(own, prompt=REPORTED) is None  # a run inside the task's own description
    assert rule("The release notes for Pine Notes 2.0 are done.", prompt=REPORTED) is None
    assert rule(own, prompt=EngineText(REPORTED.text)) == TextRule.PROMPT_ECHO  # were it the engine's words


def test_a_value_the_prompt_shows_cut_short_is_still_its_writers() -> None:
    memory = "Bob prefers REST for public APIs and GraphQL inside the company"
    shown = EngineText(
        "[mem-1] (fact, 5) Bob prefers REST for public APIs and GraphQL insi…", people=(memory,)
    )
    assert rule("Bob prefers REST for public APIs, as I said.", prompt=shown) is None
    assert (
        rule("Bob prefers REST for public APIs, as I said.", prompt=EngineText(shown.text))
        == TextRule.PROMPT_ECHO
    )


def test_the_engines_ids_are_left_out_of_its_runs_as_out_of_a_drafts() -> None:
    claimed = EngineText("Your task [task-3] was claimed by Bob at 09:12.")
    assert rule("Your task was claimed by Bob, sadly.", prompt=claimed) == TextRule.PROMPT_ECHO
    assert (
        rule("Your task was claimed by Bob, sadly.", prompt=EngineText("Your task was claimed today."))
        is None
    )


def test_a_run_never_spans_a_cut_where_peoples_words_were() -> None:
    draft = "Say hello to the team and the room, all of you."
    assert rule(draft, prompt=EngineText(f"Say hello to the team{CUT} and the room is quiet")) is None
    assert (
        rule(draft, prompt=EngineText("Say hello to the team and the room is quiet")) == TextRule.PROMPT_ECHO
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Meet at [dateTime] in the lobby.", TextRule.PLACEHOLDER),  # camelCase
        ("Hi [user_name], welcome!", TextRule.PLACEHOLDER),  # snake_case
        ("Hi {firstName}, welcome!", TextRule.PLACEHOLDER),
        ("Dear <firstName>, thanks.", TextRule.PLACEHOLDER),
        ("Hi [FIRST_NAME]!", TextRule.PLACEHOLDER),
        ("Thanks [userId]!", TextRule.PLACEHOLDER),  # a hump after two small letters
        ("The [iPhone] and [iOS] builds are green.", None),  # a hump after one: a name
        ("Ship [macOS] first.", None),
        ("Check items[userId] in the loop.", None),  # an index
        ("The template renders {firstName} before the greeting.", None),  # a message about code
        ("The JSON field [userId] comes back empty.", None),
        ("Read [dateTime](https://example.com/dt) first.", None),  # a Markdown link
    ],
)
def test_camel_and_snake_case_slots_are_placeholders_outside_code_talk(
    text: str, expected: TextRule | None
) -> None:
    assert rule(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Great, see you soon.</br></big},&right: thanks", TextRule.DEGENERATE),  # the embedded model's
        ("20 Februar atzmazze.</strong></span}]}]", TextRule.DEGENERATE),  # a tag closed by a brace
        ("Done </div] now", TextRule.DEGENERATE),
        ("Done </p) now", TextRule.DEGENERATE),
        ("How to make smart home appliances!</br>This is what I know.", TextRule.DEGENERATE),
        ("Fish &amp; chips for lunch?", TextRule.DEGENERATE),
        ("{{&#34;*Your message is new today.", TextRule.DEGENERATE),
        ("Great job&right: let's go", TextRule.DEGENERATE),
        ("Replace the </br> tags with <br>.", None),  # a message about markup
        ("The page shows &amp; where the HTML should say &.", None),
        ("R&D: the budget is approved, Q&A at 3.", None),
        ("if a<b) we stop, else a>b.", None),
        ("<b>Note</b>: the build is green.", None),  # a real element, closed
    ],
)
def test_markup_debris_is_degenerate_and_markup_talk_is_not(text: str, expected: TextRule | None) -> None:
    assert rule(text) == expected
