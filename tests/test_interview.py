"""Interviews: an employee answers in character from its mind at the end of a run or at a moment,
and the run is only read (nothing in the run directory changes)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.interview import answer_text, interviewees, minds_at
from ideaco.mind.interview import interview_prompt
from ideaco.store.runlog import RunLog
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content
from tests.guard.runs import RUNS

CLEAN_ENV = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "IDEACO_MODEL": None}
EARLY = datetime(2026, 1, 5, 9, 20)


@pytest.fixture(scope="module")
def office_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    guarded = next(r for r in RUNS if r.name == "office-s1")
    out = tmp_path_factory.mktemp("interview") / "run"
    result = CliRunner().invoke(app, guarded.args(out), env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    return out


def echo_answer(body: dict) -> dict:
    """An interviewee that says who it is and how many things it remembers."""
    system = body["messages"][0]["content"]
    name = system.split(",", 1)[0].removeprefix("You are ")
    section = system.split("## What you remember", 1)[1].split("\n\n", 1)[0]
    remembered = section.count("\n- ") - section.count("(nothing in particular)")
    return {"answer": f"{name} here; I remember {remembered} things. ({last_user_content(body)})"}


def digest(path: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.iterdir())}


def test_minds_rebuilt_from_the_logs_at_the_end_equal_the_saved_state(office_run: Path) -> None:
    run = RunLog.open(office_run)
    saved, rebuilt = minds_at(run), minds_at(run, run.end)
    assert set(saved) == set(rebuilt)
    for eid in saved:
        mine, theirs = rebuilt[eid].to_dict(), saved[eid].to_dict()
        # A think still in flight at the end had begun (its natural stamina recovery is in the
        # state) but never landed (no record): stamina may differ by that recovery alone.
        for key in ("memory", "relationships", "tasks", "interest", "saturation", "escalated"):
            assert mine[key] == theirs[key], (eid, key)
        assert mine["stamina"]["last_active_at"] <= theirs["stamina"]["last_active_at"]


def test_minds_at_a_moment_hold_only_what_had_landed_by_then(office_run: Path) -> None:
    run = RunLog.open(office_run)
    early, end = minds_at(run, EARLY), minds_at(run)

    def held(minds: dict) -> int:
        return sum(
            len(m.memory.long_term) + len(m.memory.short_term) + len(m.tasks) + len(m.relationships)
            for m in minds.values()
        )

    assert 0 < held(early) < held(end)
    assert set(early) <= set(end)
    fresh = minds_at(run, run.start)
    assert all(not m.memory.long_term and not m.tasks for m in fresh.values())


def test_the_prompt_holds_memories_colleagues_tasks_and_feelings(office_run: Path) -> None:
    run = RunLog.open(office_run)
    who = interviewees(run)["ana"]
    system, user = interview_prompt(who, "How did the sync bug go?", run.end, company="Acme")
    text = system["content"]
    assert text.startswith("You are Ana,") and "Personality:" in text
    assert "## What you remember" in text and "## Your colleagues, as you see them" in text
    closed = [t for t in who.mind.tasks if not t.pending]
    assert closed  # the guard run's Ana closes work, and the prompt names each of her tasks' outcomes
    for task in who.mind.tasks:
        assert f"[{task.id}] {task.description} — {task.status}" in text
    assert user == {"role": "user", "content": "Interviewer: How did the sync bug go?"}


def test_answer_text_reads_the_json_or_takes_the_reply_as_it_is() -> None:
    assert answer_text('{"answer": "  Fine,\\n thanks. "}') == "Fine, thanks."
    assert answer_text("Just fine.") == "Just fine."
    assert answer_text('{"innerThoughts": "x"}') == '{"innerThoughts": "x"}'


def test_interview_one_employee_changes_nothing_in_the_run(office_run: Path) -> None:
    before = digest(office_run)
    with FakeOpenAIServer(handler=echo_answer) as fake:
        result = CliRunner().invoke(
            app,
            ["interview", str(office_run), "ana", "How was your week?", "--base-url", fake.base_url],
            env=CLEAN_ENV,
        )
    assert result.exit_code == 0, result.output
    assert "Q (at the end of the run): How was your week?" in result.output
    ana = minds_at(RunLog.open(office_run))["ana"].memory
    remembered = len(ana.long_term) + len(ana.short_term)
    assert (
        f"Ana: Ana here; I remember {remembered} things. (Interviewer: How was your week?)" in result.output
    )
    assert (
        len(fake.requests) == 1 and fake.requests[0]["response_format"]["json_schema"]["name"] == "interview"
    )
    assert digest(office_run) == before


def test_interview_everyone_at_a_moment_as_json(office_run: Path) -> None:
    with FakeOpenAIServer(handler=echo_answer) as fake:
        result = CliRunner().invoke(
            app,
            [
                "interview",
                str(office_run),
                "--all",
                "What is going on?",
                "--at",
                "09:20",
                "--json",
                "--base-url",
                fake.base_url,
            ],
            env=CLEAN_ENV,
        )
    assert result.exit_code == 0, result.output
    answers = json.loads(result.stdout)
    people = interviewees(RunLog.open(office_run), EARLY)
    assert "secretary" in people  # who could be asked; --all asks the employees, not the secretary
    assert [a["employee"] for a in answers] == [e for e in people if e != "secretary"]
    assert all(a["at"] == EARLY.isoformat() for a in answers)
    # Each answers from what it remembered then, not at the end.
    for a in answers:
        memory = people[a["employee"]].mind.memory
        assert f"I remember {len(memory.long_term) + len(memory.short_term)} things" in a["answer"]


def test_the_secretary_answers_when_asked_by_its_id(office_run: Path) -> None:
    with FakeOpenAIServer(handler=echo_answer) as fake:
        result = CliRunner().invoke(
            app,
            ["interview", str(office_run), "secretary", "Busy?", "--json", "--base-url", fake.base_url],
            env=CLEAN_ENV,
        )
    assert result.exit_code == 0, result.output
    assert [a["employee"] for a in json.loads(result.stdout)] == ["secretary"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["zed", "Hi?"], "no employee 'zed' in this run"),
        (["ana", "Hi?", "--at", "23:59"], "--at '23:59': the run covers"),
        (["ana", "Hi?", "--at", "noon"], "--at 'noon': give HH:MM"),
        (["--all", "ana", "Hi?"], "with --all give one QUESTION"),
        (["Hi?"], "give an EMPLOYEE and a QUESTION"),
    ],
)
def test_a_bad_interview_is_one_line(office_run: Path, args: list[str], says: str) -> None:
    result = CliRunner().invoke(
        app, ["interview", str(office_run), *args, "--base-url", "http://127.0.0.1:9/v1"], env=CLEAN_ENV
    )
    assert result.exit_code == 2, result.output
    assert says in result.stderr and "Traceback" not in result.output


def test_the_api_interviews_now_or_at_a_moment_without_changing_the_run(tmp_path: Path) -> None:
    import ideaco
    from tests.cli.test_run import SCENARIO, answer

    scenario = tmp_path / "small.yaml"
    scenario.write_text(SCENARIO)

    def reply(body: dict) -> dict:
        if body.get("response_format", {}).get("json_schema", {}).get("name") == "interview":
            return echo_answer(body)
        return answer(body)

    with FakeOpenAIServer(handler=reply) as fake:
        sim = ideaco.load(scenario, out=tmp_path / "run", base_url=fake.base_url, max_calls=1000)
        try:
            sim.run("10m")
            before, thoughts = digest(sim.path), len(sim.thoughts)
            text = sim.interview("alice", "Which API style, and why?")
            assert text.startswith("Alice here;") and "Which API style" in text
            everyone = sim.interview_all("How is it going?", at="09:05")
            assert set(everyone) == {"alice", "bob"}  # the secretary by its id only
            assert "here; I remember" in sim.interview("secretary", "Busy?")
            assert digest(sim.path) == before and len(sim.thoughts) == thoughts
            with pytest.raises(KeyError, match="no employee 'zed'"):
                sim.interview("zed", "Hi?")
            sim.run("2m")  # the run goes on as if nothing was asked; interviews were not counted
            assert sim.office.stats.llm_calls == sum((t["llm"] or {}).get("calls", 0) for t in sim.thoughts)
        finally:
            summary = sim.close()
    calls = summary["calls"]  # the run's calls: the interviews' are no calls made, nor tokens no thought used
    assert calls["made"] == calls["used"] + calls["dropped"]
    assert calls["dropped"] or calls["tokens_unused"] == 0
