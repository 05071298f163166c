"""Scenario files (spec 1.6): shipped scenarios, one-line errors, defaults and derived conversations."""

from __future__ import annotations

import textwrap
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from ideaco.scenario import (
    ConversationSpec,
    Scenario,
    ScenarioError,
    format_duration,
    load_scenario,
    parse_duration,
    parse_offset,
)
from ideaco.shipped import shipped_scenarios

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

BASE = """\
company: Acme Labs
departments:
  - {id: eng, name: Engineering, mission: Ship it, members: [alice, bob]}
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
rooms:
  - {id: api-design, name: API design, kind: work, members: [alice, bob]}
script:
  - {at: "00:00", to: api-design, text: "REST or GraphQL?"}
"""


@pytest.fixture
def write(tmp_path: Path):
    """Write a scenario file (dedented) and return its path."""

    def _write(text: str, name: str = "x.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return path

    return _write


def error_of(path: Path) -> str:
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{path}: ")
    return msg[len(f"{path}: ") :]


# --- shipped scenarios ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_scenarios_load_with_their_personas(path: Path):
    s = load_scenario(path)
    personas = s.resolve_personas(path.parent)
    assert set(personas) == {e.id for e in s.employees}
    assert all(p.tone and p.speaking_style for p in personas.values())


def test_startup_scenario_shows_activity_in_thirty_minutes():
    s = load_scenario(SCENARIOS / "startup.yaml")
    assert s.duration == timedelta(minutes=30) and len(s.employees) == 5
    assert {"old-hand", "chatterbox", "zen-slacker", "anxious-perfectionist"} <= {
        e.archetype for e in s.employees
    }
    assert 4 <= len(s.script) <= 6 and max(e.at for e in s.script) <= timedelta(minutes=25)
    assert any("@" in e.text for e in s.script)
    assert any(e.to.startswith("boss:") for e in s.script)
    kinds = {c.kind for c in s.conversations()}
    assert {"work", "casual", "boss"} <= kinds


def test_rest_vs_graphql_story():
    s = load_scenario(SCENARIOS / "rest-vs-graphql.yaml")
    assert s.duration == timedelta(hours=1)
    assert s.employee("alice").archetype == "anxious-perfectionist"
    assert s.employee("bob").archetype == "old-hand"
    first, second = s.script[:2]
    assert (first.at, first.to, first.text) == (
        timedelta(0),
        "api-design",
        "Should the new API be REST or GraphQL?",
    )
    assert (second.at, second.to) == (timedelta(minutes=5), "boss:alice")
    assert "ask Bob" in second.text and "report back" in second.text


# --- defaults and derived views ---------------------------------------------------------------------


def test_defaults(write):
    s = load_scenario(write(BASE, "my-office.yaml"))
    assert s.name == "my-office"
    assert s.language == "en"
    assert s.duration == timedelta(hours=2)
    assert s.start == datetime(2026, 1, 5, 9, 0, 0)
    assert s.llm is None and s.timers == {} and s.gates == {}
    assert s.departments[0].lead == "alice"  # the first member
    assert s.rooms[0].kind == "work"


def test_conversations_include_rooms_casual_rooms_and_boss_chats(write):
    s = load_scenario(write(BASE))
    assert s.conversations() == [
        ConversationSpec("api-design", "work", "API design", ("alice", "bob")),
        ConversationSpec("eng-casual", "casual", "Engineering casual", ("alice", "bob")),
        ConversationSpec("boss:alice", "boss", "Boss and Alice", ("alice",)),
        ConversationSpec("boss:bob", "boss", "Boss and Bob", ("bob",)),
    ]


def test_script_may_target_a_casual_room_and_a_boss_chat(write):
    s = load_scenario(
        write(
            BASE + '  - {at: "00:10", to: eng-casual, text: hi}\n  - {at: 1h30m, to: "boss:bob", text: yo}\n'
        )
    )
    assert [(e.at, e.to) for e in s.script[1:]] == [
        (timedelta(minutes=10), "eng-casual"),
        (timedelta(hours=1, minutes=30), "boss:bob"),
    ]


def test_round_trip_through_a_plain_dict(write):
    s = load_scenario(
        write(
            BASE + 'duration: 1h30m\nstart: "2026-03-02T08:30:00"\nllm: {model: m, temperature: 0.7}\n'
            "timers: {min_delay: 5}\n"
        )
    )
    d = s.to_dict()
    import json

    assert json.loads(json.dumps(d)) == d  # plain JSON types only
    assert d["duration"] == "1h30m" and d["start"] == "2026-03-02T08:30:00"
    assert Scenario.model_validate(d) == s


def test_persona_file_relative_to_the_scenario(write, tmp_path: Path):
    (tmp_path / "personas").mkdir()
    (tmp_path / "personas" / "bob.yaml").write_text("quirk: quotes RFCs from memory\n")
    path = write(BASE.replace("archetype: old-hand", "archetype: old-hand, persona: personas/bob.yaml"))
    s = load_scenario(path)
    bob = s.resolve_personas(path.parent)["bob"]
    assert (bob.archetype, bob.quirk) == ("old-hand", "quotes RFCs from memory")


# --- one-line errors --------------------------------------------------------------------------------


def test_room_member_that_is_not_an_employee(write):
    path = write(BASE.replace("kind: work, members: [alice, bob]", "kind: work, members: [alice, zed]"))
    assert error_of(path) == "rooms[0].members: 'zed' is not an employee"


def test_unknown_archetype(write):
    msg = error_of(write(BASE.replace("archetype: old-hand", "archetype: ninja")))
    assert msg.startswith("employees[1].archetype: unknown archetype 'ninja'")
    typo = error_of(write(BASE.replace("archetype: old-hand", "archetype: zeo", 1)))
    assert "unknown archetype 'zeo' (did you mean 'zen-slacker'?)" in typo


def test_duplicate_id_across_employees_and_rooms(write):
    path = write(BASE.replace("{id: api-design,", "{id: bob,"))
    assert error_of(path) == "rooms[0].id: duplicate id 'bob' (already used by employees[1].id) (+1 more)"


def test_duplicate_employee_id(write):
    path = write(BASE.replace("id: bob, name: Bob", "id: alice, name: Bob"))
    # bob, now gone, is still listed in the department and the room: those are counted too.
    assert (
        error_of(path) == "employees[1].id: duplicate id 'alice' (already used by employees[0].id) (+2 more)"
    )


def test_a_name_that_looks_like_anothers_is_a_duplicate(write):
    """Issue 28, item 22: "Аlice" with a Cyrillic А is Alice to the eye (TS #39's skeleton)."""
    path = write(BASE.replace("name: Bob", "name: \u0410lice"))
    assert error_of(path) == "employees[1].name: duplicate name '\u0410lice' (also alice)"


def test_two_names_of_one_script_that_share_a_skeleton_are_two_names(write):
    """Issue 36, item 7: "Amie" and "Arnie" (m -> rn in the skeleton) both work here."""
    scenario = load_scenario(
        write(BASE.replace("name: Alice", "name: Amie").replace("name: Bob", "name: Arnie"))
    )
    assert [e.name for e in scenario.employees] == ["Amie", "Arnie"]
    path = write(BASE.replace("name: Alice", "name: Amie").replace("name: Bob", "name: ＡＭＩＥ"))
    assert (
        error_of(path) == "employees[1].name: duplicate name 'ＡＭＩＥ' (also alice)"
    )  # NFKC: the same name


ZH = """\
company: 新创公司
language: zh
departments:
  - {id: product, name: 产品部, mission: 打造最好用的产品, members: [zhangwei, lina, zhangwei2]}
employees:
  - id: zhangwei
    name: 张伟
    role: 高级工程师（后端）
    archetype: old-hand
    tasks: [{description: 写接口文档, document: docs/接口文档.md}]
  - {id: lina, name: 李娜, role: UI・UXデザイナー, archetype: idealist}
  - {id: zhangwei2, name: 章伟, role: Sr. Engineer – Backend, archetype: chatterbox}
rooms:
  - {id: review, name: 设计评审（每周）, kind: work, members: [zhangwei, lina]}
teams:
  - {id: frontend, name: 前端组, department: product, members: [lina]}
script:
  - {at: "00:00", to: review, text: "@张伟 你好，今天评审接口文档。"}
"""


def test_a_chinese_office_loads_with_its_names_labels_and_document_paths(write):
    """Issue 36, items 5-6: names, roles, departments, rooms, teams and a document path in Chinese."""
    scenario = load_scenario(write(ZH))
    assert [e.name for e in scenario.employees] == ["张伟", "李娜", "章伟"]
    assert scenario.employees[0].tasks[0].document == "docs/接口文档.md"
    names = {c.id: c.name for c in scenario.conversations()}
    assert names["review"] == "设计评审（每周）" and names["frontend"] == "前端组"
    assert names["product-casual"] == "产品部 casual"


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("{id: product,", "{id: 产品部,", "departments[0].id: '产品部' is not a valid id: an id holds ASCII"),
        ("{id: product,", "{id: 产品部,", "a name may be in any script ('chanpinbu' would do)"),
        ("id: zhangwei\n", "id: 张伟\n", "employees[0].id: '张伟' is not a valid id: an employee's id holds"),
        ("{id: frontend,", "{id: '前端 组',", "teams[0].id: '前端 组' is not a valid id"),
        ("docs/接口文档.md", "../接口文档.md", "leaves its folder"),
        ("docs/接口文档.md", "docs/接口\u202e文档.md", "use letters (any script)"),
    ],
)
def test_a_bad_id_or_path_in_a_chinese_office_says_what_it_may_hold(write, old, new, said):
    assert said in error_of(write(ZH.replace(old, new, 1)))


@pytest.mark.parametrize("bad_id", ["Alice", "boss", "all", "2x", "a b"])
def test_bad_or_reserved_employee_id(write, bad_id: str):
    assert error_of(write(BASE.replace("id: bob,", f"id: '{bad_id}',"))).startswith("employees[1].id: ")


def test_bad_duration(write):
    assert error_of(write(BASE + "duration: 2 hours\n")).startswith("duration: '2 hours' is not a duration")


def test_zero_duration(write):
    assert error_of(write(BASE + "duration: 0m\n")) == "duration: '0m' must be longer than zero"


def test_bad_script_time(write):
    msg = error_of(write(BASE.replace('at: "00:00"', 'at: "noon"')))
    assert msg.startswith("script[0].at: 'noon' is not a time")


def test_bad_yaml_names_the_line(write):
    msg = error_of(write("company: X\nemployees: [\n  {id: a\n"))
    assert msg.startswith("not valid YAML (line ")


def test_not_a_mapping(write):
    assert error_of(write("- a\n- b\n")) == "not a mapping (it is a list)"


def test_missing_file(tmp_path: Path):
    shipped = ", ".join(shipped_scenarios())
    assert (
        error_of(tmp_path / "nope.yaml") == f"file not found (a shipped scenario runs by its name: {shipped})"
    )
    assert error_of(tmp_path / "wrkday.yaml").startswith(
        "file not found (did you mean 'workday'?) (a shipped"
    )


def test_persona_file_not_a_mapping(write, tmp_path: Path):
    (tmp_path / "bob.yaml").write_text("just a string\n")
    path = write(BASE.replace("archetype: old-hand", "persona: bob.yaml"))
    assert error_of(path) == f"employees[1].persona: {tmp_path / 'bob.yaml'}: not a mapping (it is a str)"


def test_missing_persona_file(write, tmp_path: Path):
    path = write(BASE.replace("archetype: old-hand", "persona: personas/bob.yaml"))
    assert error_of(path) == f"employees[1].persona: {tmp_path / 'personas' / 'bob.yaml'}: file not found"


def test_employee_without_archetype_or_persona(write):
    path = write(BASE.replace(", archetype: old-hand", ""))
    assert error_of(path) == "employees[1]: needs an archetype or a persona file"


def test_script_to_unknown_room(write):
    msg = error_of(write(BASE.replace("to: api-design", "to: kitchen")))
    assert msg.startswith("script[0].to: 'kitchen' is not a room")


def test_script_to_boss_chat_of_unknown_employee(write):
    msg = error_of(write(BASE.replace("to: api-design", "to: 'boss:zed'")))
    assert msg == "script[0].to: 'boss:zed': 'zed' is not an employee"


def test_lead_not_member(write):
    msg = error_of(write(BASE.replace("members: [alice, bob]}", "members: [alice], lead: bob}", 1)))
    assert msg == "departments[0].lead: 'bob' is not a member of 'eng'"


def test_empty_room(write):
    msg = error_of(write(BASE.replace("kind: work, members: [alice, bob]", "kind: work, members: []")))
    assert msg == "rooms[0].members: a room needs at least one member"


def test_an_employee_given_as_a_word_is_asked_for_as_a_mapping_without_class_names(write):
    text = BASE.replace("  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}", "  - bob")
    msg = error_of(write(text))
    assert msg.startswith("employees[1]: should be a mapping of fields, not str 'bob'"), msg
    assert "Spec" not in msg


def test_unknown_field_and_missing_field(write):
    assert error_of(write(BASE + "employes: []\n")) == "employes: unknown field (did you mean 'employees'?)"
    assert error_of(write(BASE + "xyzzy: 1\n")) == "xyzzy: unknown field"  # nothing close: no guess
    nested = BASE.replace("members: [alice, bob]}", "members: [alice, bob], mision: x}", 1)
    assert error_of(write(nested)) == "departments[0].mision: unknown field (did you mean 'mission'?)"
    assert error_of(write(BASE.replace("company: Acme Labs\n", ""))) == "company: required"


@pytest.mark.parametrize(
    ("alice", "bob", "clash"),
    [
        ("docs", "docs/a.md", True),
        ("docs/a.md", "docs", True),
        ("Docs", "docs/a.md", True),  # one folder on a case-insensitive disk
        ("设计", "设计/接口.md", True),
        ("docs/a.md", "docs2/a.md", False),
        ("docs/a.md", "docs/b.md", False),
        ("docs.md", "docs/a.md", False),
    ],
)
def test_tasks_naming_a_document_and_a_folder_of_it_are_refused_at_load(write, alice, bob, clash):
    """Issue 37, item 4: one of the two could never be delivered."""
    text = BASE.replace(
        "archetype: anxious-perfectionist}",
        f"archetype: anxious-perfectionist, tasks: [{{description: Write it, document: '{alice}'}}]}}",
    ).replace(
        "archetype: old-hand}",
        f"archetype: old-hand, tasks: [{{description: Write it, document: '{bob}'}}]}}",
    )
    if not clash:
        load_scenario(write(text))
        return
    msg = error_of(write(text))
    assert msg.startswith("employees[") and ".tasks[0].document: " in msg, msg
    assert "a path cannot be both a document and a folder" in msg


def test_casual_room_id_clash(write):
    msg = error_of(write(BASE.replace("{id: api-design,", "{id: eng-casual,")))
    assert msg.startswith(
        "rooms[0].id: duplicate id 'eng-casual' (already used by departments[0] (its casual room))"
    )


# --- times ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2h", timedelta(hours=2)),
        ("30m", timedelta(minutes=30)),
        ("90s", timedelta(seconds=90)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("1h30m15s", timedelta(hours=1, minutes=30, seconds=15)),
        ("1.5h", timedelta(hours=1, minutes=30)),
        ("1d", timedelta(days=1)),
        ("2H", timedelta(hours=2)),
        (45, timedelta(seconds=45)),
    ],
)
def test_parse_duration(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "2", "h", "2 hours", "1m2h", "-5m", True])
def test_parse_duration_rejects(text):
    with pytest.raises(ValueError):
        parse_duration(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("00:00", timedelta(0)),
        ("00:05", timedelta(minutes=5)),
        ("01:30", timedelta(hours=1, minutes=30)),
        ("1:30", timedelta(hours=1, minutes=30)),
        ("00:01:30", timedelta(minutes=1, seconds=30)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("45s", timedelta(seconds=45)),
    ],
)
def test_parse_offset(text, expected):
    assert parse_offset(text) == expected


@pytest.mark.parametrize("text", ["00:60", "noon", "1:2"])
def test_parse_offset_rejects(text):
    with pytest.raises(ValueError):
        parse_offset(text)


@pytest.mark.parametrize("td", [timedelta(0), timedelta(seconds=90), timedelta(hours=26, seconds=1)])
def test_format_duration_round_trips(td):
    assert parse_duration(format_duration(td)) == td


# --- tasks at the start (issue 29, item 1) ----------------------------------------------------------

SEEDED = BASE.replace(
    "archetype: old-hand}",
    'archetype: old-hand, tasks: [{description: "Write the API spec", document: docs/api.md}]}',
)


def test_an_employee_may_start_with_a_task_that_names_its_document(write):
    bob = load_scenario(write(SEEDED)).employees[1]
    assert [(t.description, t.document) for t in bob.tasks] == [("Write the API spec", "docs/api.md")]


@pytest.mark.parametrize(
    ("path", "said"),
    [("../x.md", "'../x.md'"), ("/etc/passwd", "not relative to the workspace"), ("", "needs a path")],
)
def test_a_seeded_tasks_document_is_a_workspace_path(write, path: str, said: str):
    msg = error_of(write(SEEDED.replace("document: docs/api.md", f"document: '{path}'")))
    assert msg.startswith("employees[1].tasks[0].document: ") and said in msg


def test_a_seeded_document_needs_a_department_to_keep_it(write):
    text = SEEDED.replace("members: [alice, bob]}", "members: [alice]}", 1)
    assert error_of(write(text)) == "employees[1].tasks[0].document: 'bob' is in no department to keep it"
