"""Skills in the office (issue 20, item 5): the prompt lists their summaries, `load_skill` puts one's
text in the next prompt once, an unknown one is refused with a note, and a fitting piece opens first."""

from __future__ import annotations

from datetime import timedelta

from ideaco import skills
from ideaco.office.rules import levers
from tests.office.conftest import ROOM, START, prompt_of, scenario_dict, step_until, thought, thoughts_of, who

ASK = {"at": "00:00", "to": ROOM, "text": "@Alice how should we review the payment change?"}


def skilled(**kw):
    data = scenario_dict(script=[ASK], **kw)
    data["employees"][0]["skills"] = ["code-review", "testing"]
    return data


def loader(name: str):
    prompts: list[str] = []

    def answer(request):
        if who(request).employee != "alice":
            return thought()
        prompts.append(prompt_of(request))
        if len(prompts) == 1:
            return thought(actions=[{"tool": "load_skill", "args": {"name": name}}])
        return thought()

    return answer, prompts


async def test_the_system_prompt_lists_the_summaries_and_the_wire_offers_load_skill(make_office) -> None:
    seen = []
    office = make_office(lambda r: seen.append(r) or thought(), scenario=skilled())
    office.start()
    await step_until(office, lambda: any(who(r).employee == "alice" for r in seen))
    request = next(r for r in seen if who(r).employee == "alice")
    system = request.messages[0]["content"]
    assert "Your skills" in system
    assert "- code-review: Code review: read a change for correctness" in system
    assert "Read the description first" not in system  # the text waits for load_skill
    assert "Alice (id alice, Frontend engineer; skills: code-review, testing)" in system
    assert "Bob (id bob, Backend engineer)" in system
    actions = str(request.json_schema)
    assert "load_skill" in actions and "code-review" in actions
    bob = next((r for r in seen if who(r).employee == "bob"), None)
    assert bob is None or "load_skill" not in str(bob.json_schema)


async def test_load_skill_puts_its_text_in_the_next_prompt_once(make_office) -> None:
    answer, prompts = loader("code-review")
    office = make_office(answer, scenario=skilled())
    office.start()
    await step_until(office, lambda: len(prompts) >= 3, within=timedelta(hours=3))
    assert "Read the description first" not in prompts[0]
    assert "## Skill (loaded with load_skill" in prompts[1] and "Read the description first" in prompts[1]
    assert "Read the description first" not in prompts[2]  # once
    [step] = [s for t in thoughts_of(office, "alice") for s in t["applied"]["steps"] if s["step"] == "tool"]
    assert step["tool"] == "load_skill" and step["ok"]


async def test_an_unknown_skill_is_refused_with_a_note_the_employee_reads(make_office) -> None:
    answer, prompts = loader("rocket-science")
    office = make_office(answer, scenario=skilled())
    office.start()
    await step_until(office, lambda: len(prompts) >= 2, within=timedelta(hours=3))
    assert (
        "load_skill refused: 'rocket-science' is not one of your skills (code-review, testing)" in prompts[1]
    )
    assert "## Skill (loaded" not in prompts[1]


def test_split_notes_quotes_each_loaded_skill_once_and_bounded(make_office) -> None:
    office = make_office(scenario=skilled())
    alice = office.employees["alice"]
    notes = [
        skills.MARK + "testing",
        "a plain note",
        skills.MARK + "testing",
        skills.MARK + "nope",
    ]
    plain, quoted = skills.split_notes(alice.persona, notes)
    assert plain == ("a plain note",)
    assert len(quoted) == 1 and quoted[0].startswith("testing\n")


def test_a_member_whose_skills_fit_the_piece_gets_first_dibs(make_office) -> None:
    office = make_office(scenario=skilled())
    alice, cfg = office.employees["alice"], office.config.person_levers()
    fitting = levers.dibs(alice, START, cfg, "Review the payment change")
    other = levers.dibs(alice, START, cfg, "Plan the offsite")
    assert fitting < other
    assert levers.dibs(office.employees["bob"], START, cfg, "Review the payment change") == levers.dibs(
        office.employees["bob"], START, cfg
    )
