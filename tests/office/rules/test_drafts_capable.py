"""Draft filters that pass what a capable model writes (issue 21, item 3).

Engineers, support and product people talk about HTML, templates, code and data. Before, any
`<word>` or `{word}` was a placeholder and a JSON snippet was "markup debris": 4 of 9 ordinary
engineers' messages were refused. Each message here must pass; beside them, what a weak model
leaves must still be refused, each with its rule.
"""

from __future__ import annotations

from functools import partial

import pytest

from ideaco.cycle import TextRule
from ideaco.office.rules.text import STRICT, check, name_ids, quoted_code, talks_code

check_text = partial(check, filters=STRICT)  # a draft, as the embedded model's run checks it

MUST_PASS = [
    # engineers: markup and templates
    "The <div> wrapper breaks the flex layout on Safari; I'll swap it for a <section>.",
    "Never put user input inside <script> tags, escape it first.",
    "Replace the <br> tags with CSS margins, please.",
    'Our login form still uses <input type="password" autocomplete="off">, which annoys password managers.',
    "The Jinja template renders {{ user.name }} before the greeting, so the order looks wrong.",
    'In Python, f"Hello {name}" is clearer than concatenation.',
    "The f-string prints {count} items even when the list is empty.",
    "Use `{name}` in the format string and pass name as a keyword.",
    "The error template has a {request_id} placeholder we never fill; I'll fix it.",
    "Set the header to <API_KEY> from the vault, not the literal string.",
    # engineers: data and code
    'The endpoint returns {"id": 42, "status": "ok"} on success.',
    'Can you check why {"error": "timeout", "retry": true} comes back on every third call?',
    "The config is [1, 2, 3] for the three regions.",
    'The payload {"items": [], "total": 0} means the search found nothing.',
    "Run `pytest -q tests/test_sync.py` before you push.",
    "```\ngit rebase -i HEAD~3\n```\nthen squash the fixups.",
    "`x->next = NULL;` is missing in the delete path, that's the crash.",
    "Regex `^\\d{3}-\\d{4}$` rejects the new phone format.",
    "The log line shows \\n instead of a line break; the escape is doubled in the JSON encoder.",
    "Use === instead of == in that comparison.",
    "Bumped the version to 2.4.1 and tagged it v2.4.1.",
    "Staging is at 10.0.3.17:8080 until DNS catches up.",
    "The cron runs at */15 * * * * which is every fifteen minutes.",
    "Memory went from 512 MB to 1.2 GB after the upgrade (+134%).",
    "The API design doc is in the wiki: https://wiki.example.com/api/v2?tab=design#errors",
    "We should add a `@retry(times=3)` decorator to the fetch function.",
    "SELECT count(*) FROM orders WHERE status = 'open'; returns 0 on staging.",
    "The <Button> component ignores the disabled prop.",
    "Array indexes start at [0], so the last one is [n-1].",
    "Merged PR #482, closing the sync bug.",
    # engineers: square brackets that are meant (issue 21, item 4)
    "The [beta] flag is on for the staging tenants.",
    "The steps are in [the runbook](https://wiki.example.com/runbook), see [details](https://x.io/d).",
    "- [x] migrations written\n- [ ] docs updated\n- [X] reviewed by Ben",
    "[x] smoke test passed, the load test is next.",
    "Check `array[0]` and then items[index] in the loop.",
    "[WIP] fix login redirect on Safari",
    "As shown in [1], the cache halves the p95.",
    "The ticket says 'the app crashs' [sic], but it's the export that fails.",
    "[ERROR] disk full on db-2 again, I'm cleaning the old snapshots.",
    "[TASK] Rotate the API keys before Friday.",
    "The log format is [time] [level] message, so grep on the level.",
    "Shipped to [beta] and [canary] today, prod on Monday.",
    # names that look like variables, and markup talked about (issue 29, item 2)
    "The [iPhone] and [iOS] builds are green; [macOS] next.",
    "The template renders {firstName} before the greeting, and items[userId] is empty.",
    "Replace the </br> tags with <br>, that's not valid HTML.",
    "The page shows &amp; where the HTML should say &.",
    "R&D signed off; Q&A is at 3.",
    # support
    "Hi Dana, I've reset the customer's password; they should get an email in a few minutes.",
    "Ticket #1043: the customer says the export button does nothing on Firefox 128.",
    "Customer reports error code E-502 when uploading files over 2 GB.",
    "They wrote: 'the app logs me out every 5 minutes'. Can someone on backend look?",
    "Refund issued ($49.99), and I apologised for the double charge.",
    "Escalating: three enterprise customers hit the same SSO loop today.",
    # product
    "Q3 goal: cut onboarding from 7 steps to 4, measured by completion rate.",
    "Let's A/B test the pricing page: $9/month vs $99/year.",
    "The roadmap slide says 'Offline mode — Q4', let's not promise a date yet.",
    "Users love the dark mode 🎉",
    "Great work on the launch, team! 👏👏",
    "👍",
    "🚀🚀",
    "Priority order: (1) sync, (2) search, (3) sharing.",
    "NPS went from 31 to 42 — best quarter so far.",
    # other languages
    "好的，我来看看同步的问题。",
    "了解です。明日までにレビューします。",
    "D'accord, je m'en occupe cet après-midi.",
    "Vale, lo reviso después de la reunión.",
    "Привет! Я посмотрю логи сегодня.",
    "Ja, das Deployment läuft um 15:00 Uhr.",
    # everyday
    "Lunch at 12:30?",
    "Can we move the standup to 10:15 tomorrow?",
    "I'm out Friday; Ben covers on-call.",
    "It is Monday, 9:37 and the build is green again.",
    "Insert the SIM card (chip side down) before you boot it.",
    "We meet Monday 09:30. Bring the numbers.",
    # The other side of the rules for the prompt's marks and the answer format's words:
    "Lena (our PM) said the launch is on track.",
    "Alice (alice@example.com) owns the rollout.",
    "I'll add some context (see the doc) later today.",
    "We made a decision: ship on Friday, with the boss's OK.",
    'Use <li class="item"> for each entry in the list.',
    "Say what you mean, and mean what you say.",
    # Beside the answer format's words reworded (issue 29, item 2), what people write:
    "What you found there, did it help?",
    "I like what you say, and I'll say so here too.",
    "The task optimizer and the memory operator are both down.",
    "Top 10 — the list we agreed on last week, in order.",
    "Sprint 2 — we shipped five of them.",
    "It is a std::vector<std::vector<int>> of rows, and a >> b shifts.",
    "We made the call (decision: ship on Friday), and the context: the demo is Monday.",
    "We have 56 open tickets — fantasy or not, they need owners.",
]

MUST_NOT_PASS = [
    ("[insert message here]", TextRule.PLACEHOLDER),
    ("Hi [Your Name], welcome to the team!", TextRule.PLACEHOLDER),
    ("Welcome to [company_name]!", TextRule.PLACEHOLDER),
    ("{{ name }} says hi", TextRule.PLACEHOLDER),
    ("Hi {name}, welcome to {company}!", TextRule.PLACEHOLDER),
    ("Dear <NAME>, thanks for your message.", TextRule.PLACEHOLDER),
    ("[<message_info>] Your team is launching", TextRule.PLACEHOLDER),
    ("Hello <your name>, see you soon", TextRule.PLACEHOLDER),
    ("I am pleased with all of your services, including [service1].", TextRule.PLACEHOLDER),
    ("I will finish [task] by [time]", TextRule.PLACEHOLDER),
    ("Let's discuss [topic] with [target] and then [action]", TextRule.PLACEHOLDER),
    ("Meet me on [Date] at [Time] in [location].", TextRule.PLACEHOLDER),
    ("Please send the report to [email] by [date and time].", TextRule.PLACEHOLDER),
    ("I talked to [colleague] about [project], see [link].", TextRule.PLACEHOLDER),
    ("The deadline moved because of [reason].", TextRule.PLACEHOLDER),
    ("Hi [x], welcome aboard", TextRule.PLACEHOLDER),
    ("Your message is here (insert text) for further discussion and feedback.", TextRule.PLACEHOLDER),
    ("Let's meet at [dateTime] in the lobby.", TextRule.PLACEHOLDER),
    ("Hi {firstName}, welcome aboard!", TextRule.PLACEHOLDER),
    ("Welcome, [FIRST_NAME]!", TextRule.PLACEHOLDER),
    ("See you soon.</br></big},&right: thanks", TextRule.DEGENERATE),
    ("How to make it!</br>This is what I know.", TextRule.DEGENERATE),
    ("It is Monday 09:37. There are new messages...", TextRule.PROMPT_ECHO),
    ("[6] },{", TextRule.DEGENERATE),
    ("25% of your staff delivers...}},{'topicSaturation':6}]}", TextRule.DEGENERATE),
    ('ok"}, {"content": "yes', TextRule.DEGENERATE),
    ("Sure thing\\n\\nBest\\n", TextRule.DEGENERATE),
    ("http://www.", TextRule.DEGENERATE),
    ("1.1.1.1.1.1", TextRule.DEGENERATE),
    ("}}}}]]]] ok", TextRule.DEGENERATE),
    ("Sooooooo good", TextRule.DEGENERATE),
    ("#$%^&*()!@#", TextRule.DEGENERATE),
    # Seen in the README's first command on SmolLM2 once the compact wire was short (issue 29, item 2):
    ("You are answering Boss (BOSS):", TextRule.PLACEHOLDER),  # the prompt's mark of the boss
    ("Lena (lena): I am speaking about your last task, what is it?", TextRule.PROMPT_ECHO),
    ("Let's talk about [taskop] today...", TextRule.PLACEHOLDER),  # the answer format's words as slots
    ("I am speaking here about [mem-id] to you today.", TextRule.PLACEHOLDER),
    ("Let's talk about (context)-the-most difficult task.", TextRule.PLACEHOLDER),
    ("Your answer is [context_2]!", TextRule.PLACEHOLDER),
    ("I am happy and [Boss] needs to create a task for tomorrow!", TextRule.PLACEHOLDER),
    ("What you say here...", TextRule.PROMPT_ECHO),  # the compact answer format's `say`
    ("Same as you!</br></pre><ul><li class=", TextRule.DEGENERATE),  # markup left open at the end
    # ... and the answer format's words reworded, in the final first command (issue 29, item 2):
    ("what you find or did", TextRule.PROMPT_ECHO),  # the resolve hint's example value
    ("What I found or did.", TextRule.PROMPT_ECHO),
    ("What can be said about how task Op is done?", TextRule.PROMPT_ECHO),  # taskOps, in words
    ("Let me add some memory_ops first.", TextRule.PROMPT_ECHO),  # a field's own spelling
    ("Let me add some memory Ops first.", TextRule.PROMPT_ECHO),
    # (and "memory ops" in small letters is English: "Memory ops on ARM are 2x slower", issue 36)
    ("What you say on this message here is your own thoughts.", TextRule.PROMPT_ECHO),
    ("My thoughts about Team Lunch are 56 — fantasy.", TextRule.PROMPT_ECHO),  # affinity 56 — ...
    ("Your thoughts about this project have been a nightmare to share: 58 — fantasy.", TextRule.PROMPT_ECHO),
    ("Zeki. 56:47</truccion>>What is left on design?", TextRule.DEGENERATE),  # a tag closed twice
    (
        "I'm glad you're happy about this project [context_type: 5]... My team is talented.",
        TextRule.PLACEHOLDER,
    ),
]


@pytest.mark.parametrize("text", MUST_PASS)
def test_what_a_capable_model_writes_passes(text: str) -> None:
    assert check_text(text) is None


@pytest.mark.parametrize(("text", "expected"), MUST_NOT_PASS)
def test_what_a_weak_model_leaves_is_still_refused(text: str, expected: TextRule) -> None:
    verdict = check_text(text)
    assert verdict is not None and verdict.rule == expected, verdict


def test_the_table_is_big_enough_to_mean_something() -> None:
    assert len(MUST_PASS) >= 50


def test_code_and_data_are_blanked_and_prose_is_kept() -> None:
    assert (
        quoted_code('see {"id": 42} and `x{y}` then f"{a}" in <div class="x">') == "see   and   then   in  "
    )
    assert quoted_code("Hi {name}, [x] and {} stay") == "Hi {name}, [x] and {} stay"
    assert quoted_code("[6] },{") == "  },{"  # a list parses; what follows it is still debris


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("The template renders {name}.", True),
        ("Use `ls` here.", True),
        ('It returns {"a": 1}.', True),
        ("Hi {name}, welcome!", False),
        ("See you at lunch.", False),
    ],
)
def test_a_message_talks_about_code_when_it_quotes_or_names_some(text: str, code: bool) -> None:
    assert talks_code(text) is code


@pytest.mark.parametrize(
    ("draft", "posted"),
    [
        (
            "My task [task-1] has not moved for three thoughts.",
            "My task 'Write the launch checklist' has not moved for three thoughts.",
        ),
        ("Done with [task-1], noted in [mem-3].", "Done with 'Write the launch checklist', noted in."),
        ("Is [task-9] yours?", "Is yours?"),  # not one of mine: nothing to name it by
        ("No ids here [beta].", "No ids here [beta]."),
        ("Done with (task-1), noted in (mem-3)!", "Done with 'Write the launch checklist', noted in!"),
        ("Report: task-1 is finished.", "Report: 'Write the launch checklist' is finished."),
        ("Task-1 and [TASK-1] too", "'Write the launch checklist' and 'Write the launch checklist' too"),
        ("Giving up on task-9.", "Giving up on."),
        # not an id of its own: part of a word, a path, a version, an address, a URL
        ("See pre-task-1d, task-1d and task-1_x.", "See pre-task-1d, task-1d and task-1_x."),
        ("Paths: src/task-1, id=task-1, #task-1, task-1@host, task-1.5", None),
        ("Open https://tracker.example.com/task-1 or www.example.com/(task-1)", None),
    ],
)
def test_ids_read_as_what_they_name(draft: str, posted: str | None) -> None:
    assert name_ids(draft, {"task-1": "Write the launch checklist"}) == (posted or draft)


@pytest.mark.parametrize(
    ("text", "passes"),
    [
        ("👍" * 8, True),  # a few emoji are a reply
        ("👍" * 9, False),  # more are no words
        ("👍🏽", True),  # a skin tone
        ("👨\u200d👩\u200d👧", True),  # a family joined by zero-width joiners
        ("❤️", True),  # a variation selector
        ("", False),
        ("[of course", True),  # two words beside a bracket: a sentence
        ("[of", False),  # one: a fragment
    ],
)
def test_emoji_and_bracket_fragments_on_both_sides(text: str, passes: bool) -> None:
    assert (check_text(text) is None) is passes


def test_a_short_draft_is_never_the_thought_leaked() -> None:
    inner = "ship it now please team"
    assert check_text("ship it now please", inner_thoughts=inner).rule == TextRule.LEAKED_THOUGHT  # 4 words
    assert check_text("ship it now", inner_thoughts=inner) is None  # 3 words: too short to tell


def test_a_draft_without_ids_is_left_as_it_is() -> None:
    assert name_ids("No ids here ", {}) == "No ids here "
    assert name_ids(" See [task-1] ", {"task-1": "x"}) == "See 'x'"
