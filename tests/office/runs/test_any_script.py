"""Names, ids, labels and document paths in any script, through the secretary's tools and a running
office (issue 36, items 5-7): two hires named in Chinese get two ids, a Chinese department, room and
team work end to end, Amie and Arnie both work here, a Cyrillic "Bоѕѕ" does not."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from ideaco.cli import org_commands
from ideaco.cli.chat_commands import parse_line
from ideaco.ids import SECRETARY
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.tools.org import ToolContext, run_tool
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.scenario import Scenario
from ideaco.store.workspace import Workspace, WorkspaceError
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import START, MakeOffice, prompt_of, step_until, thought, who

EMPTY = {"name": "zhco", "company": "新创公司", "language": "zh", "start": START.isoformat()}


def _office(handler: Any = None) -> Any:
    llm = ScriptedLLM(handler=handler or (lambda _r: thought(False)))
    scenario = Scenario.model_validate(EMPTY)
    return office_from_scenario(
        scenario, ".", llm=llm, clock=SimClock(START), seed=3, journal=MemoryJournal()
    )


@pytest.fixture
def org() -> tuple[Scratch, ToolContext]:
    office = _office()
    org, ctx = Scratch(office.state), ToolContext(office.company, START)
    made = run_tool(org, "create_department", {"name": "产品部", "mission": "打造最好用的产品"}, ctx)
    assert made.ok, made.message
    return org, ctx


def _hire(org: Scratch, ctx: ToolContext, name: str, dept: str = "产品部") -> Any:
    args = {"name": name, "role": "高级工程师（后端）", "archetype": "old-hand", "department": dept}
    return run_tool(org, "hire_employee", args, ctx)


def _ids(org: Scratch) -> dict[str, str]:
    return {e.name: e.id for e in org.employees.values() if e.id != SECRETARY}


def test_a_department_named_in_chinese_gets_a_readable_id_and_its_casual_room(org) -> None:
    scratch, _ = org
    dept = scratch.company.departments["chanpinbu"]
    assert dept.name == "产品部" and "chanpinbu-casual" in scratch.conversations


@pytest.mark.parametrize(
    ("names", "ids"),
    [
        (["张伟", "李娜"], ["zhangwei", "lina"]),
        (["张伟", "章伟"], ["zhangwei", "zhangwei-2"]),  # two names, one transliteration: a suffix
        (["José", "Łukasz", "Дмитрий"], ["jose", "lukasz", "dmitriy"]),
        (["さくら", "김민준", "Γιώργος"], ["sakura", "gimminjun", "giorgos"]),
        (["प्रिया", "สมชาย"], ["priya", "smchay"]),
        (["Amie", "Arnie"], ["amie", "arnie"]),  # m and rn share a skeleton; two Latin names are two names
    ],
)
def test_hires_named_in_any_script_get_readable_ids_of_their_own(org, names, ids) -> None:
    scratch, ctx = org
    for name in names:
        hired = _hire(scratch, ctx, name)
        assert hired.ok, hired.message
    assert [_ids(scratch)[n] for n in names] == ids


@pytest.mark.parametrize(
    ("second", "why"),
    [
        ("张伟", "张伟 (zhangwei) already works here"),
        ("B\u043e\u0455\u0455", "name: 'B\u043e\u0455\u0455' is reserved"),  # Cyrillic о, ѕ: a spoof
        ("ᴮᵒˢˢ", "name: 'ᴮᵒˢˢ' is reserved"),  # modifier letters: NFKC makes them "Boss" (the gate's)
        ("ＺＨＡＮＧ", "already works here"),  # full width: NFKC makes it the same name
        ("\u0410mie", "looks like Amie (amie)"),  # a Cyrillic А before Latin letters
    ],
)
def test_a_spoof_or_the_same_name_is_refused(org, second, why) -> None:
    scratch, ctx = org
    for name in ("张伟", "Amie", "Zhang"):
        assert _hire(scratch, ctx, name).ok
    refused = _hire(scratch, ctx, second)
    assert not refused.ok and why in refused.message, refused.message


def test_a_rehire_comes_back_by_name_and_another_name_gets_a_new_id(org) -> None:
    scratch, ctx = org
    assert _hire(scratch, ctx, "张伟").ok
    assert run_tool(scratch, "dismiss_employee", {"id": "张伟"}, ctx).ok
    other = _hire(scratch, ctx, "章伟")  # the same id made, but somebody else: not a rehire
    assert other.ok and "hired 章伟 (zhangwei-2)" in other.message
    back = _hire(scratch, ctx, "张伟")
    assert back.ok and "rehired 张伟 (zhangwei)" in back.message


def test_a_chinese_room_and_team_work_and_their_names_are_kept(org) -> None:
    scratch, ctx = org
    assert _hire(scratch, ctx, "张伟").ok and _hire(scratch, ctx, "李娜").ok
    room = run_tool(scratch, "create_room", {"name": "设计评审", "members": ["张伟", "lina"]}, ctx)
    team = run_tool(
        scratch, "create_team", {"name": "前端组", "department": "产品部", "members": ["李娜"]}, ctx
    )
    assert room.ok and team.ok, (room.message, team.message)
    assert scratch.conversations["shejipingshen"].name == "设计评审"
    assert scratch.conversations["shejipingshen"].members == ["zhangwei", "lina"]
    assert scratch.company.departments["chanpinbu"].teams[0].name == "前端组"
    again = run_tool(scratch, "create_room", {"name": "设计评审", "members": ["lina"]}, ctx)
    assert not again.ok and "already exists: shejipingshen" in again.message
    assigned = run_tool(
        scratch, "assign_requirement", {"to": "前端组", "description": "实现用户登录接口"}, ctx
    )
    assert assigned.ok and "lina" in assigned.message, assigned.message


def test_a_taken_id_made_from_a_name_gets_a_suffix_but_a_given_one_is_refused(org) -> None:
    scratch, ctx = org
    assert _hire(scratch, ctx, "Ann").ok
    made = run_tool(scratch, "create_room", {"name": "Ann", "members": ["ann"]}, ctx)
    assert made.ok and "room ann-2 (Ann" in made.message
    given = run_tool(scratch, "create_room", {"id": "ann", "name": "Annex", "members": ["ann"]}, ctx)
    assert not given.ok and "the room id 'ann' is already taken" in given.message
    dept = run_tool(scratch, "create_department", {"name": "產品部"}, ctx)  # traditional: another name
    assert dept.ok and "department chanpinbu-2 (產品部)" in dept.message


def test_an_id_that_holds_nothing_says_what_an_id_holds(org) -> None:
    scratch, ctx = org
    refused = run_tool(scratch, "create_department", {"id": "★", "name": "研发中心（上海）"}, ctx)
    assert not refused.ok and "an id holds ASCII letters, digits" in refused.message


def test_the_workspace_writes_a_path_in_any_script_and_no_control_character(tmp_path) -> None:
    space = Workspace(tmp_path)
    space.write("chanpinbu/docs/接口文档.md", "# 接口文档\n")
    assert (tmp_path / "chanpinbu" / "docs" / "接口文档.md").read_text(encoding="utf-8") == "# 接口文档\n"
    assert space.read("chanpinbu/docs/接口文档.md") == "# 接口文档\n"
    for key in ("chanpinbu/docs/a\x07.md", "chanpinbu/docs/a\u202e.md", "chanpinbu/../x.md"):
        with pytest.raises(WorkspaceError):
            space.write(key, "x")


ZH_OFFICE = {
    "name": "zh",
    "company": "新创公司",
    "language": "zh",
    "start": START.isoformat(),
    "departments": [{"id": "product", "name": "产品部", "members": ["zhangwei", "lina"]}],
    "employees": [
        {"id": "zhangwei", "name": "张伟", "role": "产品经理", "archetype": "old-hand"},
        {"id": "lina", "name": "李娜", "role": "前端工程师", "archetype": "idealist"},
    ],
}
DOC = "docs/接口文档.md"


async def test_a_document_with_a_chinese_path_is_written_in_a_running_office(make_office: MakeOffice) -> None:
    def answer(request: Any) -> dict[str, Any]:
        tag, prompt = who(request), prompt_of(request)
        if tag.employee == "zhangwei" and tag.conversation.startswith("boss:") and "写接口文档" in prompt:
            content = "# 接口文档\n\nGET /users 返回用户列表。\n"
            return thought(
                True,
                "好的，马上写。",
                actions=[{"tool": "write_document", "args": {"path": DOC, "content": content}}],
            )
        return thought(False)

    office = make_office(answer, scenario=ZH_OFFICE)
    office.start()
    office.post_as_boss("boss:zhangwei", "请写接口文档")
    await step_until(office, lambda: f"product/{DOC}" in office.state.documents, within=timedelta(minutes=30))
    assert office.state.documents[f"product/{DOC}"].content.startswith("# 接口文档")


async def test_the_secretary_grows_a_chinese_company_by_talking() -> None:
    ask = "请开一个产品部，招两位工程师：张伟和章伟。"

    def answer(request: Any) -> dict[str, Any]:
        tag, prompt = who(request), prompt_of(request)
        if tag.employee != SECRETARY or ask not in prompt or "chanpinbu" in prompt:
            return thought(False)
        hire = {"role": "后端工程师", "archetype": "old-hand", "department": "产品部"}
        return thought(
            True,
            "好的。",
            actions=[
                {"tool": "create_department", "args": {"name": "产品部", "mission": "打造最好用的产品"}},
                {"tool": "hire_employee", "args": {"name": "张伟", **hire}},
                {"tool": "hire_employee", "args": {"name": "章伟", **hire}},
            ],
        )

    office = _office(answer)
    office.start()
    office.post_as_boss(f"boss:{SECRETARY}", ask)
    await office.run(timedelta(minutes=3))
    names = {e.id: e.name for e in office.employees.values() if e.id != SECRETARY}
    assert names == {"zhangwei": "张伟", "zhangwei-2": "章伟"}
    assert office.state.company.departments["chanpinbu"].members == ["zhangwei", "zhangwei-2"]


def test_the_bosss_commands_take_names_in_any_script() -> None:
    """/department, /hire and /newroom are the same tools: 产品部 opens, two Chinese hires get two ids."""
    office = _office()
    office.start()
    for line in (
        "/department 产品部 打造最好用的产品",
        "/hire 张伟 old-hand 产品部 后端工程师",
        "/hire 章伟 idealist chanpinbu 前端工程师（实习）",
        "/hire José chatterbox 产品部 Sr. Engineer – Backend",
        "/newroom 设计评审 张伟 章伟",
    ):
        command = parse_line(line)
        assert not isinstance(command, str) and command is not None
        assert org_commands.run(office, command, f"boss:{SECRETARY}").ok
    names = {e.id: e.name for e in office.employees.values() if e.id != SECRETARY}
    assert names == {"zhangwei": "张伟", "zhangwei-2": "章伟", "jose": "José"}
    assert office.conversations["shejipingshen"].members == ["zhangwei", "zhangwei-2"]


@pytest.mark.parametrize(
    ("name", "made"),
    [
        ("Maximilian Alexanderfitz", "maximilianalexanderfitz"),  # 23 letters: whole
        ("Maximilian Alexanderfitzg", "maximilianalexanderfitzg"),  # 24: whole
        ("Maximilian Alexanderfitzge", "maximilianalexanderfitzg"),  # 25: cut at 24
        ("欧阳娜娜欧阳娜娜欧阳", "ouyangnanaouyangnanaouya"),  # a long transliteration is cut too
    ],
)
def test_a_hires_id_holds_at_most_24_characters(org, name, made) -> None:
    scratch, ctx = org
    assert _hire(scratch, ctx, name).ok
    assert _ids(scratch)[name] == made


@pytest.mark.parametrize(
    ("department", "ok"),
    [
        ("产品部", True),
        ("chanpinbu", True),
        ("产品部来帮忙", True),  # a name run on in a script written without spaces
        ("产品", False),  # less than the name
        ("技术部", False),
    ],
)
def test_a_hire_names_its_department_in_its_own_script(org, department, ok) -> None:
    scratch, ctx = org
    hired = _hire(scratch, ctx, "张伟", department)
    assert hired.ok is ok, hired.message
    assert ok or "unknown department" in hired.message
