"""Issue 36, item 8, in the chat: a boss line whose `@` names nobody but begins with a member's
name (`@张伟你好`), or that a Chinese word runs into (`辛苦了@李娜`), goes to the whole room, as the
boundary rules say, and the boss is told why in one line, with the mention written as it should be;
a line that mentions is told nothing."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from tests.cli.test_chat import chat, read_jsonl
from tests.fakes.openai_server import FakeOpenAIServer
from tests.office.conftest import thought

SCENARIO = """\
company: 青松科技
language: zh
duration: 1h
start: "2026-01-05T09:00:00"
departments:
  - {id: yanfa, name: 研发部, mission: 按时上线, members: [zhangwei, lina, alice], lead: zhangwei}
employees:
  - {id: zhangwei, name: 张伟, role: 后端工程师, archetype: old-hand}
  - {id: lina, name: 李娜, role: 测试工程师, archetype: warm-hearted}
  - {id: alice, name: Alice, role: Designer, archetype: warm-hearted}
"""


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=lambda body: thought()) as server:
        yield server


def test_the_boss_is_told_an_at_word_that_runs_on_from_a_name(fake, tmp_path: Path) -> None:
    scenario = tmp_path / "zh.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    lines = [
        "/room yanfa-casual",
        "@张伟你好",
        "@Alicehi, lunch?",
        "辛苦了@李娜",
        "@李娜 你好",
        "@李娜，明天见",
        "/quit",
    ]
    result = chat(scenario, fake, lines, "--out", str(out))
    assert result.returncode == 0, result.stderr
    told = [line for line in result.stdout.splitlines() if "names nobody here" in line]
    assert told == [
        "@张伟你好 names nobody here; write @张伟 你好",
        "@Alicehi names nobody here; write @Alice hi",
        "辛苦了@李娜 names nobody here; write 辛苦了 @李娜",
    ]
    # The boundary rule holds: a near-miss mentions nobody, so the line addresses the whole room.
    room = ["zhangwei", "lina", "alice"]
    boss = [(m["text"], m["mentions"]) for m in read_jsonl(out / "messages.jsonl") if m["sender"] == "boss"]
    assert boss == [
        ("@张伟你好", room),
        ("@Alicehi, lunch?", room),
        ("辛苦了@李娜", room),
        ("@李娜 你好", ["lina"]),
        ("@李娜，明天见", ["lina"]),
    ]


def test_the_python_api_warns_the_same_line(fake, tmp_path: Path) -> None:
    import ideaco

    scenario = tmp_path / "zh.yaml"
    scenario.write_text(SCENARIO)
    sim = ideaco.load(scenario, out=tmp_path / "api", base_url=fake.base_url)
    try:
        with pytest.warns(UserWarning, match="^@张伟你好 names nobody here; write @张伟 你好$"):
            said = sim.say("yanfa-casual", "@张伟你好")
        assert said["mentions"] == ["zhangwei", "lina", "alice"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a mention warns nothing
            assert sim.say("yanfa-casual", "@张伟 你好")["mentions"] == ["zhangwei"]
    finally:
        sim.close()
