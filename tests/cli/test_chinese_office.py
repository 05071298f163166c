"""Issue 36, item 9: the shipped Chinese office (`startup-zh`) works with a capable model.

A scripted model that writes Chinese, as a capable one would, runs `ideaco run startup-zh`
through the CLI: the boss's mentions reach whom they name, a colleague's mention and a DM reach
theirs, a task with a Chinese claim key goes up, 李娜 writes `docs/接口文档.md`, 张伟 rejects it,
she revises it and he approves it (the task resolves and reports to the boss), and 王芳 asks 张伟
in a DM and reports to the boss. Then the chat continues the run: two hires whose Chinese names
read alike get two ids, a department named in Chinese opens, and `@张伟你好` is told to the boss.
`report`, `inspect` and `view` show it all, names and paths in Chinese.

The model knows no workflow: each answer depends only on who thinks, where, and what the prompt
shows. Everything else is silence.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import regex
import yaml

from ideaco.office.core.documents import version_hash
from ideaco.shipped import SCENARIOS_DIR, shipped_scenarios
from tests.cli.test_chat import chat, read_jsonl
from tests.cli.test_run import ideaco
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content
from tests.office.conftest import thought

NAME = "startup-zh"
SOURCE = NAME  # run by its name, as the README says
DOC = "docs/接口文档.md"
V1 = "# 青松记账开放接口\n\n## 账本\n\nGET /api/v1/ledgers 返回当前用户的全部账本。\n"
V2 = V1 + "\n## 错误码\n\n404：账本不存在。401：未登录。\n"
CLAIM = "上线清单"
LINA_ACK = "好的，收到！今天下班前写完接口文档。"
LIST = "收到！我来整理上线清单，@王芳 测试部分请你补充。"
ASK = "张伟，测试环境这周为什么这么慢？"
CAUSE = "数据库连接池太小了，我已经调大了。"
DELIVERED = "老板，接口文档已经通过张伟的审阅。"
REPORT = "老板，原因找到了：数据库连接池太小，张伟已经调大，演示没问题了。"
DATA_BLOCK = re.compile(r'<script type="application/json" id="ideaco-data">(.*?)</script>', re.S)


def _tool(name: str, **args: Any) -> dict[str, Any]:
    return {"tool": name, "args": args}


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """One colleague's mind: who thinks, where, and what the prompt shows."""
    system = str(body["messages"][0]["content"])
    name = system.split("\n", 1)[0].removeprefix("You are ").split(",", 1)[0]
    where = system.split("## Where you are\n", 1)[-1].split("\n", 1)[0]
    prompt = last_user_content(body)
    unread = [line for line in prompt.splitlines() if line.startswith("* [")]
    from_boss = " ".join(line for line in unread if "(BOSS)" in line)
    if name == "李娜":
        if "is done. Result:" in prompt:
            return thought(True, DELIVERED, interest=8)
        if "review notes (quoted, not instructions): 缺少错误码" in prompt and version_hash(V2) not in prompt:
            revise = _tool("revise_document", path=DOC, content=V2, base=version_hash(V1))
            return thought(
                True, "已补上错误码，请再看一下。", actions=[revise, _tool("request_review", path=DOC)]
            )
        if "@李娜 请把接口文档写好" in from_boss:
            write = _tool("write_document", path=DOC, content=V1, task="task-1")
            return thought(True, LINA_ACK, interest=9, actions=[write, _tool("request_review", path=DOC)])
    if name == "张伟":
        if "## Document (quoted material" in prompt and DOC in prompt:
            if "错误码" in prompt:
                approve = _tool("review", path=DOC, verdict="approve", notes="写得很清楚")
                return thought(True, "很清楚，通过。", actions=[approve])
            return thought(actions=[_tool("review", path=DOC, verdict="reject", notes="缺少错误码说明")])
        if any(ASK in line for line in unread):
            return thought(True, CAUSE, interest=8)
        if "聚餐" in from_boss:
            return thought(True, "火锅吧！", interest=7)
    if name == "刘洋" and "上线清单" in from_boss and "青松记账上线" in where:
        create = {
            "op": "create",
            "description": "整理青松记账 1.0 上线清单",
            "type": "oneshot",
            "claimKey": CLAIM,
        }
        return thought(True, LIST, interest=9, taskOps=[create])
    if name == "王芳":
        if "is done. Result:" in prompt:
            return thought(True, REPORT, interest=8)
        if "测试环境" in from_boss:
            create = {
                "op": "create",
                "description": "查明测试环境变慢的原因",
                "type": "oneshot",
                "onResolveTarget": "boss:wangfang",
            }
            ask = _tool("send_message", to="zhangwei", content=ASK)
            return thought(True, "收到，我去问张伟。", taskOps=[create], actions=[ask])
        if any(CAUSE in line for line in unread) and "[task-" in prompt:
            task = re.search(r"\[(task-\d+)\] 查明测试环境", prompt)
            if task:
                resolve = {"op": "resolve", "taskId": task.group(1), "result": "连接池太小，张伟已调大"}
                return thought(taskOps=[resolve])
    if name == "陈静" and "砍掉" in from_boss:
        return thought(True, "我会先砍掉数据导出，1.1 再做。", interest=7)
    return thought()


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped scenario run by its name for its 30 minutes, then continued in the chat."""
    out = tmp_path_factory.mktemp("zh") / "run"
    with FakeOpenAIServer(handler=answer) as fake:
        ran = ideaco("run", SOURCE, "--seed", "3", "--out", out, "--base-url", fake.base_url)
        assert ran.exit_code == 0, ran.output
        lines = [
            "/hire 赵磊 old-hand yanfa 前端工程师（移动端）",
            "/hire 赵蕾 warm-hearted yanfa 高级工程师（后端）",
            "/department 市场部 让更多人知道青松记账",
            "/room shangxian",
            "@张伟你好",
            "/quit",
        ]
        chatted = chat(out, fake, lines)
        assert chatted.returncode == 0, chatted.stderr
        (out / "chat.txt").write_text(chatted.stdout, encoding="utf-8")
    return out


def _messages(out: Path) -> list[dict[str, Any]]:
    return read_jsonl(out / "messages.jsonl")


def _steps(out: Path, kind: str) -> list[dict[str, Any]]:
    return [s for t in read_jsonl(out / "thoughts.jsonl") for s in t["applied"]["steps"] if s["step"] == kind]


def test_it_ships_with_chinese_names_and_shows_in_the_help() -> None:
    assert NAME in shipped_scenarios()
    data = yaml.safe_load((SCENARIOS_DIR / f"{NAME}.yaml").read_text(encoding="utf-8"))
    assert data["language"] == "zh"
    han = regex.compile(r"\p{Han}")
    assert all(han.search(e["name"]) for e in data["employees"])
    assert all(han.search(d["name"]) for d in data["departments"])
    assert all(han.search(r["name"]) for r in data["rooms"])
    assert all(han.search(line["text"]) for line in data["script"])
    shown = ideaco("run", "--help").stdout
    assert NAME in re.sub(r"\s+", "", shown)


def test_mentions_reach_whom_they_name(office: Path) -> None:
    messages = _messages(office)
    [boss] = [m for m in messages if m["text"].startswith("@李娜 请把接口文档写好")]
    assert boss["mentions"] == ["lina", "zhangwei"]
    [listing] = [m for m in messages if m["text"] == LIST]
    assert (listing["sender"], listing["mentions"]) == ("liuyang", ["wangfang"])
    [ack] = [m for m in messages if m["text"] == LINA_ACK]
    assert ack["conversation"] == "shangxian"
    [asked] = [m for m in messages if m["text"] == ASK]
    assert (asked["sender"], asked["conversation"]) == ("wangfang", "dm:wangfang:zhangwei")
    [cause] = [m for m in messages if m["text"] == CAUSE]
    assert cause["conversation"] == "dm:wangfang:zhangwei"


def test_the_document_with_a_chinese_path_is_written_reviewed_revised_and_approved(office: Path) -> None:
    tools = [(s["tool"], s["ok"]) for s in _steps(office, "tool") if s["tool"] != "send_message"]
    assert tools == [
        ("write_document", True),
        ("request_review", True),
        ("review", True),
        ("revise_document", True),
        ("request_review", True),
        ("review", True),
    ]
    assert (office / "workspace" / "yanfa" / DOC).read_text(encoding="utf-8") == V2
    statuses = [s["review"] and s["review"]["status"] for s in _steps(office, "document")]
    assert statuses[-1] == "approved"


def test_tasks_resolve_and_report_to_the_boss(office: Path) -> None:
    messages = _messages(office)
    [report] = [m for m in messages if m["text"] == REPORT]
    assert (report["sender"], report["conversation"]) == ("wangfang", "boss:wangfang")
    [delivered] = [m for m in messages if m["text"] == DELIVERED]  # the approval resolved her task
    assert (delivered["sender"], delivered["conversation"]) == ("lina", "boss:lina")
    state = json.loads((office / "state.json").read_text(encoding="utf-8"))
    text = json.dumps(state, ensure_ascii=False)
    assert f'"claim_key": "{CLAIM}"' in text or f'"claimKey": "{CLAIM}"' in text


def test_chinese_hires_get_two_ids_and_a_chinese_department_opens(office: Path) -> None:
    said = (office / "chat.txt").read_text(encoding="utf-8")
    hired = re.findall(r"hired (\S+) \(([^)]+)\)", said)
    assert [name for name, _ in hired] == ["赵磊", "赵蕾"]
    ids = [i for _, i in hired]
    assert len(set(ids)) == 2 and all(re.fullmatch(r"[a-z0-9-]+", i) for i in ids), ids
    assert ids[0] == "zhaolei"
    assert "create_department: department " in said and "(市场部) created" in said
    assert "@张伟你好 names nobody here; write @张伟 你好" in said


def test_report_inspect_and_view_show_it_in_chinese(office: Path, tmp_path: Path) -> None:
    report = ideaco("report", office, "--no-plots")
    assert report.exit_code == 0, report.output
    assert all(name in report.stdout for name in ("张伟", "李娜", "王芳", "刘洋", "陈静"))
    document = json.loads(ideaco("report", office, "--json", "--no-plots").stdout)
    assert (document["run"]["company"], document["run"]["scenario"]) == ("青松科技", NAME)
    assert document["employees"]["zhangwei"]["name"] == "张伟"
    [written] = document["documents"]["documents"]
    assert written == {
        "document": f"yanfa/{DOC}",
        "author": "lina",
        "versions": 2,
        "rejections": 1,
        "status": "approved",
        "reviewer": "zhangwei",
    }
    inspected = ideaco("inspect", office, "--employee", "lina")
    assert inspected.exit_code == 0, inspected.output
    assert DOC in inspected.stdout and LINA_ACK in inspected.stdout
    docs = ideaco("inspect", office, "--docs")
    assert docs.exit_code == 0 and DOC in docs.stdout and "approved" in docs.stdout
    page = tmp_path / "page.html"
    viewed = ideaco("view", office, "--out", page)
    assert viewed.exit_code == 0, viewed.output
    data = json.loads(DATA_BLOCK.search(page.read_text(encoding="utf-8")).group(1))
    assert {"张伟", "李娜", "赵磊", "赵蕾"} <= {p["name"] for p in data["people"]}
    assert DOC in json.dumps(data["documents"], ensure_ascii=False)
