"""A small model's secretary is offered only the tools the boss's words ask for, and must call one
(issue 12, item 5): each with its own arguments, the company's real ids as the choices."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ideaco.ids import SECRETARY
from ideaco.mind.thought import TOOL_ARGS
from ideaco.mind.thought.wire import WireContext, thought_schema
from ideaco.office.perceive.reading import wire_context
from ideaco.office.rules.requests import asked_archetypes, asked_tools, named_departments
from ideaco.persona import ARCHETYPES
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import thought, who
from tests.office.decide.test_secretary import ASK, empty_office


@pytest.mark.parametrize(
    ("line", "tools"),
    [
        (ASK, ("create_department", "hire_employee")),
        ("We need a Design dept.", ("create_department",)),
        ("Can you recruit two designers?", ("hire_employee",)),
        ("Open a war room with Ann and Bob", ("create_room",)),
        ("Assign the login API to Engineering", ("assign_requirement",)),
        ("Please dismiss Carl.", ("dismiss_employee",)),
        ("Let Carl go, sadly.", ("dismiss_employee",)),
        ("Give me a recap of today", ("summarize",)),
        ("Good morning! How are you?", ()),  # no request: the secretary just talks
        ("The fireworks were departmental fun", ()),  # words inside other words do not count
        ("Is the chairman fired up?", ()),
    ],
)
def test_asked_tools(line: str, tools: tuple[str, ...]) -> None:
    assert asked_tools([line]) == tools


@pytest.mark.parametrize(
    ("line", "names"),
    [
        (ASK, ("Engineering",)),
        ("We need a Design dept.", ("Design",)),
        (
            "The Design department is late; open a Customer Success department.",
            ("Design", "Customer Success"),
        ),
        ("Set up a department called Sales", ("Sales",)),
        ("Please open a department named 'Field Ops' today", ("Field Ops",)),
        ("Open a new department", ()),  # no name given: the model names it
        ("Good morning!", ()),
    ],
)
def test_named_departments(line: str, names: tuple[str, ...]) -> None:
    assert named_departments([line]) == names


@pytest.mark.parametrize(
    ("line", "archetypes"),
    [
        (ASK, ("old-hand",)),
        ("Hire two old hands and a Zen Slacker", ("zen-slacker", "old-hand")),
        ("Hire an old-hand designer", ("old-hand",)),
        ("Where is the old handbook?", ()),  # words inside other words do not count
        ("Hire a backend engineer", ()),
    ],
)
def test_asked_archetypes(line: str, archetypes: tuple[str, ...]) -> None:
    assert asked_archetypes([line]) == archetypes


def test_a_department_the_words_name_is_what_is_opened_and_hired_into() -> None:
    actions = _actions(
        tools=("create_department", "hire_employee"),
        compact=True,
        archetypes=("old-hand",),
        new_departments=(("engineering", "Engineering"),),
    )
    create, hire = (item["properties"]["args"]["properties"] for item in actions["prefixItems"])
    assert create["id"] == {"enum": ["engineering"]} and create["name"] == {"enum": ["Engineering"]}
    assert hire["department"] == {"enum": ["Engineering"]} and hire["archetype"] == {"enum": ["old-hand"]}


COMPANY = {"archetypes": ("old-hand", "grinder"), "departments": ("eng",), "staff": ("ann", "bob")}


def _actions(**ctx) -> dict:
    return thought_schema(WireContext(people=None, targets=("boss",), **ctx))["properties"]["actions"]


def test_compact_tools_each_with_its_own_args_each_called_once_in_order() -> None:
    actions = _actions(tools=("hire_employee", "dismiss_employee"), compact=True, **COMPANY)
    assert actions["minItems"] == actions["maxItems"] == 2 and actions["items"] is False
    hire, dismiss = actions["prefixItems"]
    assert hire["properties"]["tool"] == {"enum": ["hire_employee"]}
    args = hire["properties"]["args"]
    assert args["properties"]["archetype"] == {"enum": ["grinder", "old-hand"]}
    assert args["properties"]["department"] == {"enum": ["eng"]}
    assert set(args["required"]) == {"name", "role", "archetype", "department", "age"}
    assert args["properties"]["name"]["minLength"] == 1  # an empty name was the small model's way out
    department = _actions(tools=("create_department",), compact=True, **COMPANY)["prefixItems"][0]
    assert "minLength" not in department["properties"]["args"]["properties"]["mission"]  # may be blank
    assert dismiss["properties"]["args"]["properties"]["id"] == {"enum": ["ann", "bob"]}


def test_a_department_opened_in_the_same_answer_is_a_free_name() -> None:
    actions = _actions(tools=("create_department", "hire_employee"), compact=True, **COMPANY)
    hire = actions["prefixItems"][1]["properties"]["args"]["properties"]
    assert hire["department"]["type"] == "string"


def test_a_full_schema_still_offers_every_tool_and_requires_none() -> None:
    actions = _actions(tools=("create_department", "hire_employee"), compact=False, **COMPANY)
    assert "minItems" not in actions
    send, tool = actions["items"]["anyOf"]
    assert send["properties"]["tool"] == {"enum": ["send_message"]}
    assert tool["properties"]["tool"]["enum"] == ["create_department", "hire_employee"]


def _secretary_context(office):
    conv = office.conversations[f"boss:{SECRETARY}"]
    return wire_context(office, office.employees[SECRETARY], conv, compact=office.config.compact_schema)


@pytest.mark.parametrize(
    ("compact", "line", "offered"),
    [
        (True, ASK, ("create_department", "hire_employee")),
        (True, "Good morning!", ()),
        (False, "Good morning!", None),  # a full model: every tool, always
    ],
)
def test_the_secretary_is_offered_what_the_unread_boss_line_asks(compact, line, offered) -> None:
    office = empty_office(ScriptedLLM(handler=lambda _r: thought(False)))
    office.config.compact_schema = compact
    office.post_as_boss(f"boss:{SECRETARY}", line)
    ctx = _secretary_context(office)
    assert ctx.tools == (tuple(TOOL_ARGS) if offered is None else offered)
    if compact and offered:  # the archetype and the department the words name are the choices
        assert ctx.archetypes == ("old-hand",) and ctx.staff == ()
        assert ctx.new_departments == (("engineering", "Engineering"),) and ctx.departments == ()


def test_without_names_in_the_words_every_archetype_and_department_is_a_choice() -> None:
    office = empty_office(ScriptedLLM(handler=lambda _r: thought(False)))
    office.config.compact_schema = True
    office.post_as_boss(f"boss:{SECRETARY}", "Please hire a backend engineer.")
    ctx = _secretary_context(office)
    assert ctx.tools == ("hire_employee",) and ctx.archetypes == tuple(ARCHETYPES)
    assert ctx.new_departments == ()


async def test_a_compact_secretary_acts_on_a_plain_request() -> None:
    """End to end on the compact wire: the scripted model calls the one tool it is given."""

    def answers(request):
        if who(request).employee != SECRETARY:
            return thought(False)
        items = request.json_schema["properties"].get("actions", {}).get("prefixItems", [])
        if [i["properties"]["tool"]["enum"][0] for i in items] == ["create_department"]:
            args = {"id": "design", "name": "Design", "mission": "Make it pretty"}
            return thought(True, "Done.", actions=[{"tool": "create_department", "args": args}])
        return thought(True, "Hello!")

    office = empty_office(ScriptedLLM(handler=answers))
    office.config.compact_schema = True
    office.start()
    office.post_as_boss(f"boss:{SECRETARY}", "Good morning!")
    await office.run(timedelta(minutes=2))
    assert not office.company_model.departments
    office.post_as_boss(f"boss:{SECRETARY}", "Please open a Design department.")
    await office.run(timedelta(minutes=2))
    assert "design" in office.company_model.departments


@pytest.mark.parametrize(
    ("department", "joins"),
    [
        ("eng", "eng"),
        ("Engineering to help your", "eng"),  # a small model's words: the one department they start with
        ("engineering", "eng"),
        ("Ops team", "ops"),
        ("Sales team", None),  # no department it starts with
        ("Engine", None),  # a prefix of a name is not enough
        ("eng-tools extra", None),  # both `eng` and `eng-tools` fit: refused, not guessed
    ],
)
def test_a_hire_names_its_department_loosely_but_never_a_guess(department, joins) -> None:
    from ideaco.office.decide.scratch import Scratch
    from ideaco.office.decide.tools.org import ToolContext, run_tool
    from tests.office.conftest import START

    office = empty_office()
    org, ctx = Scratch(office.state), ToolContext(office.company, START)
    for dept in (
        {"id": "eng", "name": "Engineering"},
        {"id": "ops", "name": "Ops"},
        {"id": "eng-tools", "name": "Tools"},
    ):
        assert run_tool(org, "create_department", dept, ctx).ok
    args = {"name": "Ann", "role": "Dev", "archetype": "idealist", "department": department}
    result = run_tool(org, "hire_employee", args, ctx)
    assert result.ok == (joins is not None), result.message
    if joins:
        assert f"in {joins}" in result.message
