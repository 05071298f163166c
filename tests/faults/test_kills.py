"""SIGKILL at random moments of a run, then --resume, in a loop (issue 6, item 3).

A real `ideaco run` subprocess talks to a fake endpoint whose answers take a little real time,
so a kill can land anywhere: while a model call is in flight, between a log append and the
state checkpoint, during the checkpoint's atomic write, before the run directory has a state.
After every kill and at the end: no message or thought written before a kill is lost or
duplicated, a torn last log line is repaired on resume, state.json always loads, and the state
a resume builds agrees with the logs.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from ideaco.office.engine.build import office_from_state
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.store.state import StateStore
from tests.fakes.llm import ScriptedLLM
from tests.fakes.openai_server import FakeOpenAIServer, Reply, last_user_content

ROOT = Path(__file__).resolve().parents[2]
LOGS = ("messages.jsonl", "thoughts.jsonl")
KILLS = 7
ANSWER_DELAY_S = 0.03  # a real model call takes time: kills land while calls are in flight
DEADLINE_S = 90.0  # per test, far above the ~10 s it takes: a hung run fails instead of stalling CI

SCENARIO = """\
company: Kill Test Inc
duration: 2h
start: "2026-01-05T09:00:00"
departments:
  - {id: eng, name: Engineering, mission: "Ship the API", members: [alice, bob, carol]}
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: chatterbox}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
  - {id: carol, name: Carol, role: Designer, archetype: warm-hearted}
rooms:
  - {id: api, name: API design, kind: work, members: [alice, bob, carol]}
script:
  - {at: "00:00", to: api, text: "Should the new API be REST or GraphQL?"}
  - {at: "00:02", to: "boss:secretary", text: "Hand Engineering a requirement: a status page."}
  - {at: "00:20", to: "boss:alice", text: "Alice, where are we?"}
  - {at: "00:45", to: api, text: "Decide before lunch, please."}
  - {at: "01:10", to: eng-casual, text: "Pizza is on me today."}
  - {at: "01:40", to: api, text: "@Bob write the decision down."}
"""


def answer(body: dict) -> Reply:
    """Speak when something is unread; the thought and the text name exactly what was read.

    Two thinks of one employee that read the same unread messages therefore log the same inner
    thought and say the same text: a think redone after a resume (its first result was already
    logged) shows up as a duplicate.
    """
    system = " ".join(str(m.get("content")) for m in body["messages"] if m.get("role") == "system")
    who = re.search(r"You are (\w+)", system).group(1)
    prompt = last_user_content(body).splitlines()
    # The unread lines, and the note that hands a department lead a requirement in a new room.
    read = [line for line in prompt if line.startswith(("* [", "[system] The boss handed"))]
    digest = hashlib.sha1("\n".join(read).encode()).hexdigest()[:12]
    thought = {
        "innerThoughts": f"{who} read {len(read)} new: {digest}",
        "topicSaturation": 3,
        "interestLevel": 7,
        "shouldSpeak": bool(read),
        "reason": "test",
        "messages": [{"content": f"{who} on {digest}"}] if read else [],
        "memoryOps": [
            {
                "op": "add",
                "type": "short_term",
                "content": f"read {digest}",
                "category": "context",
                "importance": 3,
            }
        ],
    }
    if who == "Secretary" and any("a requirement:" in line for line in read):
        requirement = {"to": "eng", "description": "Build a status page"}
        thought["actions"] = [{"tool": "assign_requirement", "args": requirement}]
    return Reply(json.dumps(thought), delay=ANSWER_DELAY_S)


# --- the run directory as a user would find it after a kill ---------------------------------------


def complete_lines(path: Path) -> tuple[list[bytes], bytes]:
    """The newline-terminated lines of a log, and the unterminated tail (a torn write) if any."""
    if not path.exists():
        return [], b""
    *lines, tail = path.read_bytes().split(b"\n")
    return lines, tail


def serial(ident: str, prefix: str) -> int | None:
    match = re.fullmatch(rf"{prefix}(\d+)(?:-a?\d+)?", ident)
    return int(match.group(1)) if match else None


def check_run_dir(out: Path, seen: dict[str, list[bytes]], *, final: bool) -> dict[str, list[dict]]:
    """Every invariant a killed (or finished) run directory must keep; returns the logs."""
    records: dict[str, list[dict]] = {}
    for name in LOGS:
        lines, tail = complete_lines(out / name)
        if final:
            assert tail == b"", f"{name}: torn last line left after a resume: {tail[:80]!r}"
        parsed = []
        for n, line in enumerate(lines, start=1):
            rec = json.loads(line)  # every complete line is valid JSON
            assert isinstance(rec, dict), f"{name}: line {n} is not an object"
            parsed.append(rec)
        # Nothing written before a kill disappears, and what was there keeps its order.
        before = seen.get(name, [])
        assert lines[: len(before)] == before, f"{name}: lines logged before a kill were lost or changed"
        seen[name] = lines
        records[name] = parsed
    messages, thoughts = records["messages.jsonl"], records["thoughts.jsonl"]

    message_ids = [m["id"] for m in messages]
    thought_ids = [t["id"] for t in thoughts]
    assert len(set(message_ids)) == len(message_ids), "a message id was logged twice"
    assert len(set(thought_ids)) == len(thought_ids), "a thought id was logged twice"
    times = [m["at"] for m in messages]
    assert times == sorted(times), "a resumed clock went back before what the logs already hold"
    script = [m["id"] for m in messages if m["id"].startswith("script-")]
    assert script == [f"script-{i}" for i in range(1, len(script) + 1)], f"script lines: {script}"
    said = [(m["sender"], m["conversation"], m["text"]) for m in messages if m["sender"] != "boss"]
    repeated = sorted({s for s in said if said.count(s) > 1})
    assert not repeated, f"a think was redone after a resume and said the same again: {repeated}"

    read = [
        (t["employee"], t["conversation"], t["thought"]["innerThoughts"]) for t in thoughts if t["thought"]
    ]
    reread = sorted({r for r in read if read.count(r) > 1 and " 0 new" not in r[2]})
    assert not reread, f"a logged think was redone after a resume (same messages read again): {reread}"

    by_id = {t["id"]: t for t in thoughts}
    for t in thoughts:
        for mid in t["messages"]:
            assert mid in message_ids and mid.startswith(t["id"] + "-"), (t["id"], mid)
    for m in messages:
        owner = m["id"].rsplit("-", 1)[0]
        if m["sender"] != "boss" and owner in by_id:  # a thought id handed out twice shows here
            assert m["id"] in by_id[owner]["messages"], f"{m['id']} is not in thought {owner}'s record"

    state_path = out / "state.json"
    if state_path.exists():
        json.loads(state_path.read_bytes())  # atomic writes: never half a file
        check_resumed_state(StateStore(state_path).load(), messages, thoughts)
    else:  # killed before the first checkpoint: the directory must not look like a run
        assert not any((out / name).exists() and (out / name).stat().st_size for name in LOGS)
    return records


def check_resumed_state(state: dict, messages: list[dict], thoughts: list[dict]) -> None:
    """The office a resume builds from state.json and the logs agrees with the logs."""
    office = office_from_state(
        state,
        messages,
        thoughts=thoughts,
        llm=ScriptedLLM(),
        journal=MemoryJournal(),
        clock=SimClock(datetime.fromisoformat(state["office"]["now"])),
    )
    thought_serials = [serial(t["id"], "t") for t in thoughts]
    thought_serials += [serial(m["id"], "t") for m in messages]
    assert office.counters["thought"] >= max(filter(None, thought_serials), default=0)
    message_serials = [serial(m["id"], "m") for m in messages]
    assert office.counters["message"] >= max(filter(None, message_serials), default=0)
    unknown = {m["conversation"] for m in messages} - set(office.conversations)
    assert not unknown, f"messages in conversations the resumed office does not have: {unknown}"
    for conv in office.conversations.values():
        assert conv.count == sum(1 for m in messages if m["conversation"] == conv.id), conv.id
        for emp in office.employees.values():
            assert emp.desk.cursors.get(conv.id, 0) <= conv.count, (emp.id, conv.id)
    assert office.stats.thoughts == len(thoughts), "the state's counts disagree with thoughts.jsonl"
    assert office.stats.messages == len(messages), "the state's counts disagree with messages.jsonl"


# --- running and killing ----------------------------------------------------------------------------

# Runs the CLI with a trap that SIGKILLs the process at the n-th time it reaches a named point:
# "checkpoint" (a state save, before it writes), "rename" (an atomic write of state.json, its temp
# file written but not yet renamed), "spoken-thought" (a thought record whose messages are logged,
# before it is appended) or "tool-thought-logged" (just after a thought with actions is appended).
KILL_TRAP = """
import os, signal, sys
from ideaco.store import jsonl, state
point, n = sys.argv[1], int(sys.argv[2])
reached = 0
def trap(name):
    global reached
    if name == point:
        reached += 1
        if reached == n:
            os.kill(os.getpid(), signal.SIGKILL)
save, append, replace = state.StateStore.save, jsonl.JsonlLog.append, os.replace
def trapped_save(self, data):
    trap("checkpoint")
    return save(self, data)
def trapped_append(self, record):
    thought = self.path.name == "thoughts.jsonl"
    if thought and record.get("messages"):
        trap("spoken-thought")
    appended = append(self, record)
    if thought and (record.get("thought") or {}).get("actions"):
        trap("tool-thought-logged")
    return appended
def trapped_replace(src, dst):
    if str(dst).endswith("state.json"):
        trap("rename")
    return replace(src, dst)
state.StateStore.save, jsonl.JsonlLog.append, os.replace = trapped_save, trapped_append, trapped_replace
from ideaco.cli.main import app
app(sys.argv[3:], prog_name="ideaco")
"""


def command(args: list[str], kill_at: tuple[str, int] | None) -> list[str]:
    if kill_at is None:
        return [sys.executable, "-m", "ideaco", "run", *args]
    return [sys.executable, "-c", KILL_TRAP, kill_at[0], str(kill_at[1]), "run", *args]


def start(args: list[str], out: Path, n: int, kill_at: tuple[str, int] | None = None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IDEACO_", "OPENAI_"))}
    env["PYTHONPATH"] = str(ROOT)
    with open(out.parent / f"output-{n}.txt", "wb") as log:  # the child keeps its own handle
        return subprocess.Popen(
            command(args, kill_at), stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT
        )


def finish(proc: subprocess.Popen, out: Path, n: int, deadline: float) -> int:
    code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    assert code in (0, -signal.SIGKILL), (out.parent / f"output-{n}.txt").read_text()
    return code


def logged_bytes(out: Path) -> int:
    return sum((out / name).stat().st_size for name in LOGS if (out / name).exists())


def kill_when(proc: subprocess.Popen, out: Path, grown: int, deadline: float) -> bool:
    """SIGKILL once the logs have grown by `grown` bytes; False if the run ended first."""
    target = logged_bytes(out) + grown
    while proc.poll() is None and logged_bytes(out) < target:
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.002)  # polling for progress, not waiting a fixed time
    if proc.poll() is not None:
        return False
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return True


def tear(path: Path, rng: random.Random) -> None:
    """What a kill in the middle of a write leaves: the first part of a line, no newline."""
    lines, tail = complete_lines(path)
    if lines and not tail:
        half = lines[-1][: rng.randint(1, len(lines[-1]) - 1)]
        with open(path, "ab") as f:
            f.write(half)


def saved_counts(out: Path) -> tuple[int, int]:
    """(thoughts, messages) as the last checkpoint counted them."""
    stats = StateStore(out / "state.json").load()["office"]["stats"]
    return stats["thoughts"], stats["messages"]


def check_finished(out: Path, seen: dict[str, list[bytes]], end: str) -> dict[str, list[dict]]:
    logs = check_run_dir(out, seen, final=True)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["simulated_end"] == end
    assert summary["messages"] == len(logs["messages.jsonl"])
    assert summary["thoughts"] == len(logs["thoughts.jsonl"])
    assert saved_counts(out) == (len(logs["thoughts.jsonl"]), len(logs["messages.jsonl"]))
    assert not list(out.glob(".*.tmp")), "temp files of interrupted checkpoints were left behind"
    return logs


# --- the tests ----------------------------------------------------------------------------------------


def test_kills_at_random_moments_and_resumes_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    scenario = tmp_path / "kill.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    rng = random.Random(6)
    seen: dict[str, list[bytes]] = {}
    deadline = time.monotonic() + DEADLINE_S
    kills = torn = 0
    with FakeOpenAIServer(handler=answer) as fake:
        new_run = [
            str(scenario),
            "--duration",
            "2h",
            "--base-url",
            fake.base_url,
            "--out",
            str(out),
            "--seed",
            "1",
        ]
        resume = ["--resume", str(out), "--base-url", fake.base_url]
        for n in range(KILLS):
            proc = start(resume if (out / "state.json").exists() else new_run, out, n)
            # The first kill lands at start-up; the others after a random amount of progress.
            if not kill_when(proc, out, 0 if n == 0 else rng.randint(1, 5_000), deadline):
                break
            kills += 1
            check_run_dir(out, seen, final=False)
            if n % 2 and (out / "state.json").exists():
                tear(out / LOGS[n % 4 // 2], rng)
                torn += 1
        proc = start(resume if (out / "state.json").exists() else new_run, out, KILLS)
        assert finish(proc, out, KILLS, deadline) == 0
    assert kills == KILLS and torn >= 2
    logs = check_finished(out, seen, "2026-01-05T11:00:00")
    assert [m["id"] for m in logs["messages.jsonl"] if m["sender"] == "boss"] == [
        f"script-{i}" for i in range(1, 7)
    ]


@pytest.mark.parametrize(
    ("point", "n", "what"),
    [
        ("checkpoint", 4, "logs ahead of the state"),
        ("spoken-thought", 2, "a message logged, its thought not"),
        ("rename", 3, "a checkpoint's temp file written, not renamed"),
        ("checkpoint", 1, "before the first checkpoint"),
        ("rename", 1, "during the first checkpoint"),
        ("tool-thought-logged", 1, "the secretary's tools ran, the state not saved"),
    ],
)
def test_a_kill_at_a_chosen_point_resumes_consistently(tmp_path: Path, point: str, n: int, what: str) -> None:
    scenario = tmp_path / "kill.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    seen: dict[str, list[bytes]] = {}
    deadline = time.monotonic() + DEADLINE_S
    with FakeOpenAIServer(handler=answer) as fake:
        new_run = [
            str(scenario),
            "--duration",
            "50m",
            "--base-url",
            fake.base_url,
            "--out",
            str(out),
            "--seed",
            "1",
        ]
        assert finish(start(new_run, out, 0, kill_at=(point, n)), out, 0, deadline) == -signal.SIGKILL
        logs = check_run_dir(out, seen, final=False)
        if (
            point in ("checkpoint", "rename") and n == 1
        ):  # nothing saved yet: no run files, so the same command starts the run afresh
            assert not (out / "state.json").exists() and not any((out / name).exists() for name in LOGS)
            again = new_run
        else:
            thoughts, messages = saved_counts(out)
            if point == "checkpoint":
                assert thoughts < len(logs["thoughts.jsonl"]), "the kill did not land after a log append"
            if point == "spoken-thought":
                logged = {t["id"] for t in logs["thoughts.jsonl"]}
                assert any(m["id"].split("-")[0] not in logged for m in logs["messages.jsonl"][1:])
            if point == "rename":
                assert list(out.glob(".state.json.*.tmp")), "the kill did not land inside the atomic write"
            again = ["--resume", str(out), "--base-url", fake.base_url]
        assert finish(start(again, out, 1), out, 1, deadline) == 0
    logs = check_finished(out, seen, "2026-01-05T09:50:00")
    # The requirement the secretary handed out before the kill has its room, and its lead spoke there.
    assert {m["sender"] for m in logs["messages.jsonl"] if m["conversation"] == "req-1"} >= {"alice"}
