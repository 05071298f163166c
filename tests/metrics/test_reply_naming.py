"""A reply is not an answer, in a real run and its report (issue 37, item 10).

The boss means Bob; Bob stays silent and Alice speaks. `ideaco report` counts Alice's message as a
reply (`replied`, "replied first") and never as Bob's answer (`answered`, "answered by the
addressee"). Before the keys were renamed, `collaboration.boss.answered` was 1 here.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.llm.base import ChatRequest
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import RunJournal
from ideaco.scenario import Scenario
from ideaco.store.rundir import RunDir
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import ROOM, SILENT, START, scenario_dict, thought, who

CLEAN_ENV = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "IDEACO_MODEL": None}

# (Alice, Bob, Charlie) in a script; the boss's line meant for Bob but naming nobody as the office
# reads it (no @, or an @ that runs on from his name into a word); what Alice says instead.
SCRIPTS = {
    "latin": (("Alice", "Bob", "Charlie"), "Bob, status?", "Bob is out today."),
    "chinese": (("李娜", "张伟", "王芳"), "@张伟你好，进展如何？", "张伟今天不在。"),
    "japanese": (("佐藤", "鈴木", "高橋"), "@鈴木さん、進捗は？", "鈴木さんは今日お休みです。"),
    "devanagari": (("अनीता", "राहुल", "विकास"), "@राहुलजी, स्थिति क्या है?", "राहुल आज छुट्टी पर है।"),
    "thai": (("สมศรี", "สมชาย", "สมหญิง"), "@สมชายครับ สถานะเป็นอย่างไร?", "สมชายลาป่วยวันนี้"),
    "cyrillic": (("Анна", "Борис", "Вера"), "Борис, как дела?", "Борис сегодня в отпуске."),
    "korean": (("지은", "민준", "서연"), "@민준님 진행 상황은?", "민준 씨는 오늘 휴가입니다."),
}


def _reply_once(text: str):
    """Alice says `text` once in the room; everyone else (Bob above all) stays silent."""
    said: list[str] = []

    def handler(request: ChatRequest) -> dict[str, Any]:
        tag = who(request)
        if tag.employee == "alice" and tag.conversation == ROOM and not said:
            said.append(text)
            return thought(True, text)
        return SILENT

    return handler


async def _report(tmp_path: Path, names: tuple[str, str, str], line: str, reply: str) -> tuple[dict, str]:
    """Run the small office for an hour after the boss's `line` in the room; its report, JSON and human."""
    data = scenario_dict(casual=False)
    for employee, name in zip(data["employees"], names, strict=False):
        employee["name"] = name
    rundir = RunDir(tmp_path / "run").create()
    office = office_from_scenario(
        Scenario.model_validate(data),
        tmp_path,
        llm=ScriptedLLM(handler=_reply_once(reply)),
        clock=SimClock(START),
        seed=1,
        journal=RunJournal(rundir),
    )
    office.start()
    office.post_as_boss(ROOM, line)
    await office.run(timedelta(hours=1))
    office.checkpoint()
    office.journal.close()
    out = CliRunner().invoke(app, ["report", str(rundir.path), "--no-plots", "--json"], env=CLEAN_ENV)
    assert out.exit_code == 0, out.output
    human = CliRunner().invoke(
        app, ["report", str(rundir.path), "--no-plots"], env={**CLEAN_ENV, "COLUMNS": "220"}
    )
    assert human.exit_code == 0, human.output
    return json.loads(out.stdout)["collaboration"], human.stdout


@pytest.mark.parametrize("script", list(SCRIPTS))
async def test_someone_else_s_message_is_a_reply_and_no_answer(tmp_path: Path, script: str) -> None:
    names, line, reply = SCRIPTS[script]
    section, human = await _report(tmp_path, names, line, reply)
    boss = section["boss"]
    [row] = boss["lines"]
    assert (boss["replied"], boss["replied_rate"], row["replied_by"]) == (1, 1.0, "alice")
    assert boss["replied_by"] == {"alice": 1}
    # Nobody answered: the line names nobody the office can tell, so nobody owes it an answer.
    assert (boss["answered"], boss["addressed"], row["answered_by_addressee"]) == (0, 0, [])
    assert boss["answered_rate"] is None and boss["answered_by"] == {}
    summary = section["summary"]
    assert (summary["boss_replied_rate"], summary["boss_answered_rate"]) == (1.0, None)
    # The human report names each figure for what it counts.
    assert "boss lines replied to" in human and "boss lines answered by the addressee" in human
    table = human[human.index("The boss's lines") :]
    assert "replied first" in table and "answered by the addressee" in table and names[0] in table


@pytest.mark.parametrize("script", ["latin", "chinese", "korean"])
async def test_a_named_addressee_who_stays_silent_neither_replied_nor_answered(
    tmp_path: Path, script: str
) -> None:
    """The boss @-names Bob; Alice speaks instead: no reply (a reply comes from those the line
    names) and no answer (Bob owed one), on both counts 0."""
    names, _line, reply = SCRIPTS[script]
    section, human = await _report(tmp_path, names, f"@{names[1]} status?", reply)
    boss = section["boss"]
    [row] = boss["lines"]
    assert (boss["replied"], boss["replied_rate"], row["replied_by"]) == (0, 0.0, None)
    assert (boss["addressed"], boss["answered"], boss["answered_rate"]) == (1, 0, 0.0)
    assert (row["addressees"], row["answered_by_addressee"]) == (["bob"], [])
    table = human[human.index("The boss's lines") :]
    assert "nobody" in table and f"{names[1]} no" in table
