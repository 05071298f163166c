"""A draft that repeats what the engine wrote into its think's prompt is refused (issue 29, item 2),
through the engine: the note a think reads, with the values it shows (a task's description, a
name); what people wrote (the task's own words, the boss's line) may be said again."""

from __future__ import annotations

from typing import Any

import pytest

from ideaco.office.engine.office import Office
from tests.office.conftest import messages_in, prompt_of, step_until, thought, who

BOSS_A = "boss:alice"
RELEASE = "Write the release notes for Pine Notes 2.0"


def _refusals(office: Office, employee: str) -> list[dict[str, Any]]:
    return [
        step
        for t in office.journal.thoughts
        if t["employee"] == employee
        for step in t["applied"]["steps"]
        if step["step"] == "draft" and step.get("rule")
    ]


async def _boss_says(office: Office, text: str) -> None:
    office.post_as_boss(BOSS_A, text)
    posted = office.conversations[BOSS_A].count
    alice = office.employees["alice"]
    await step_until(office, lambda: alice.desk.cursors.get(BOSS_A, 0) >= posted)


@pytest.mark.parametrize(
    ("report", "posted"),
    [
        # the note, copied: its description filled in, its id named (as name_ids names it)
        (f"Your task [task-1] '{RELEASE}' is done. Result: done by Maya.", False),
        (f"Your task '{RELEASE}' is done, Maya says.", False),
        # the task's own words, in one's own sentence
        ("The release notes for Pine Notes 2.0 are done, Maya checked them.", True),
        (f"{RELEASE}: done, and Maya checked them.", True),
    ],
)
async def test_a_report_that_copies_the_engines_note_is_refused(
    make_office, report: str, posted: bool
) -> None:
    def answer(request: Any) -> dict[str, Any]:
        tag, prompt = who(request), prompt_of(request)
        if tag.conversation != BOSS_A:
            return thought()
        if "is done. Result:" in prompt:
            return thought(True, report, interest=7)
        if "[task-1]" in prompt:
            return thought(taskOps=[{"op": "resolve", "taskId": "task-1", "result": "done by Maya"}])
        return thought(taskOps=[{"op": "create", "description": RELEASE, "type": "oneshot"}])

    office = make_office(answer, casual=False)
    office.start()
    await _boss_says(office, f"{RELEASE}, please.")
    await _boss_says(office, "Done?")
    await step_until(office, lambda: any(t["trigger"] == "on_resolve" for t in office.journal.thoughts))

    said = [m["text"] for m in messages_in(office, BOSS_A) if m["sender"] == "alice"]
    refused = [s["rule"] for s in _refusals(office, "alice")]
    assert (said, refused) == (
        ([report.replace("[task-1]", f"'{RELEASE}'")], []) if posted else ([], ["prompt_echo"])
    )


@pytest.mark.parametrize(
    ("greeting", "posted"),
    [
        ("The boss just hired you. Greet the boss briefly in your own words!", False),  # the owed note
        ("Hello boss, the new job is great. Greet the team from me!", True),
    ],
)
async def test_a_greeting_that_copies_the_hire_note_is_refused(
    make_office, greeting: str, posted: bool
) -> None:
    def answer(request: Any) -> dict[str, Any]:
        tag = who(request)
        if tag.employee == "nina" and tag.conversation == "boss:nina":
            return thought(True, greeting, interest=7)
        return thought()

    office = make_office(answer)
    office.start()
    office.apply_tool(
        "hire_employee",
        {"name": "Nina", "role": "QA engineer", "archetype": "warm-hearted", "department": "eng"},
    )
    await step_until(office, lambda: any(t["conversation"] == "boss:nina" for t in office.journal.thoughts))

    said = [m["text"] for m in messages_in(office, "boss:nina") if m["sender"] == "nina"]
    assert said == ([greeting] if posted else [])
    assert [s["rule"] for s in _refusals(office, "nina")] == ([] if posted else ["prompt_echo"])


async def test_the_boss_line_said_again_is_no_echo(make_office) -> None:
    """The conversation's messages are people's words: repeating the boss's line is no echo."""
    line = "Pine Notes 2.0 launches in two weeks, and I need a launch checklist by tonight."

    def answer(request: Any) -> dict[str, Any]:
        return (
            thought(True, f"Got it: {line}", interest=8) if who(request).conversation == BOSS_A else thought()
        )

    office = make_office(answer, casual=False)
    office.start()
    await _boss_says(office, line)
    assert [m["text"] for m in messages_in(office, BOSS_A) if m["sender"] == "alice"] == [f"Got it: {line}"]


async def test_a_memory_said_again_is_no_echo(make_office) -> None:
    """What the employee remembers is its own words, though the engine's memory block shows it."""
    memory = "Bob prefers REST for public APIs and GraphQL inside"
    said = "Remember: Bob prefers REST for public APIs and GraphQL inside."
    answers = iter(
        [
            thought(memoryOps=[{"op": "add", "type": "long_term", "content": memory, "category": "fact"}]),
            thought(True, said, interest=8),
        ]
    )

    def answer(request: Any) -> dict[str, Any]:
        return next(answers, thought()) if who(request).conversation == BOSS_A else thought()

    office = make_office(answer, casual=False)
    office.start()
    await _boss_says(office, "Note what Bob prefers.")
    await _boss_says(office, "What does Bob prefer?")
    assert memory in prompt_of(office.llm.requests[-1])  # shown in the memory block
    assert [m["text"] for m in messages_in(office, BOSS_A) if m["sender"] == "alice"] == [said]
