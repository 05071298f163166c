"""SIGKILL in the middle of a review, then --resume (issue 20, "done means"): the workspace the resumed
run ends with is the one its logs say, nothing written before the kill is lost or written twice,
and the review goes on to its approval from where the kill left it."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import yaml

from ideaco.store.state import StateStore
from tests.cli.test_workspace_replay import PATH, V2, _files, respond
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.faults.test_kills import DEADLINE_S, LOGS, start
from tests.office.conftest import scenario_dict


def _lines(path: Path) -> list[bytes]:
    """The complete lines of a log (a last line the kill tore is left out: a resume repairs it)."""
    data = path.read_bytes() if path.exists() else b""
    return data.split(b"\n")[:-1]


def _tools(thoughts: Path) -> list[tuple[str, bool, str]]:
    if not thoughts.exists():
        return []
    out = []
    for line in thoughts.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # a line the kill tore
            continue
        out += [(s["tool"], s["ok"], s["message"]) for s in record["applied"]["steps"] if s["step"] == "tool"]
    return out


def test_a_kill_mid_review_and_a_resume_end_with_the_workspace_the_logs_say(ideaco, tmp_path: Path) -> None:
    scenario, out = tmp_path / "office.yaml", tmp_path / "run"
    script = [{"at": "00:00", "to": "boss:bob", "text": "Please write the API spec."}]
    scenario.write_text(yaml.safe_dump(scenario_dict(script=script)))
    flags = ["--seed", "1", "--model", "scripted"]
    with FakeOpenAIServer(handler=lambda body: Reply(json.dumps(respond(body)), delay=0.1)) as fake:
        proc = start(
            [str(scenario), "--duration", "1h", "--out", str(out), *flags, "--base-url", fake.base_url],
            tmp_path,
            0,
        )
        deadline = time.monotonic() + DEADLINE_S
        # Kill once the first rejection is logged and before the approval: the review is under way.
        while not any(tool == "review" and ok for tool, ok, _ in _tools(out / "thoughts.jsonl")):
            assert proc.poll() is None, "the run ended before its first review"
            assert time.monotonic() < deadline, "no review within the deadline"
            time.sleep(0.002)  # polling for the condition, not waiting a fixed time
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before = _tools(out / "thoughts.jsonl")
        assert ("review", True, f"rejected {PATH}") in before and f"approved {PATH}" not in str(before)
        logged = {name: _lines(out / name) for name in LOGS}
        resumed = ideaco("run", "--resume", out, "--base-url", fake.base_url)
    assert resumed.exit_code == 0, resumed.output
    for name, lines in logged.items():  # every line logged before the kill is still there, once
        after = _lines(out / name)
        assert after[: len(lines)] == lines and len(set(after)) == len(after), name
    tools = _tools(out / "thoughts.jsonl")
    assert tools[: len(before)] == before
    assert [m for tool, ok, m in tools if tool == "write_document" and ok] == [tools[0][2]]
    assert ("review", True, f"approved {PATH}") in tools  # the review went on after the resume
    assert _files(out) == {f"eng/{PATH}": V2.encode()}
    with StateStore(out / "state.json") as store:
        documents = store.load()["office"]["documents"]
    assert {f"{d['department']}/{d['path']}": d["content"] for d in documents} == {f"eng/{PATH}": V2}
