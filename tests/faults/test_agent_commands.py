"""An agent command against kills and stops of the ideaco running it (issue 28, items 15 and 16).

A real `ideaco run` process runs Bob's command, which hangs the first time (with a child in the
background) and writes the document when run again. Killed (SIGKILL), ideaco leaves the
command's scratch folder behind; the next run that may run commands removes it, and what still
ran in it, and the resumed think runs the command again.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
import yaml

from tests.cli.test_workspace_replay import PATH, _files, respond
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.processes import finish, start_ideaco, wait_until
from tests.office.conftest import scenario_dict

HANGS_ONCE = r"""
import os, pathlib, subprocess, sys, time
sys.stdin.read()
pids = pathlib.Path(sys.argv[1])
if not pids.exists():  # the first run: hang, a child in the background
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    pids.write_text(f"{os.getpid()} {child.pid}")
    time.sleep(300)
print("# API spec (agent)\n\nwritten when run again")
"""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _office(tmp_path: Path) -> tuple[Path, Path]:
    agent, pids = tmp_path / "agent.py", tmp_path / "pids.txt"
    agent.write_text(HANGS_ONCE, encoding="utf-8")
    data = scenario_dict(script=[{"at": "00:00", "to": "boss:bob", "text": "Please write the API spec."}])
    bob = next(e for e in data["employees"] if e["id"] == "bob")
    bob["agent"] = {"command": [sys.executable, str(agent), str(pids)], "timeout": "10m"}
    scenario = tmp_path / "office.yaml"
    scenario.write_text(yaml.safe_dump(data), encoding="utf-8")
    return scenario, pids


def _scratch(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("ideaco-agent-*"))


def test_a_killed_runs_scratch_folder_and_command_are_gone_when_the_next_run_starts(tmp_path: Path) -> None:
    scenario, pids = _office(tmp_path)
    tmp, out = tmp_path / "tmp", tmp_path / "run"
    tmp.mkdir()
    env = {"TMPDIR": str(tmp)}
    flags = ["--model", "scripted", "--allow-agent-commands"]
    started: list[int] = []
    try:
        with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
            args = ["run", scenario, "--seed", "1", "--duration", "1h", "--out", out, *flags]
            proc = start_ideaco([*args, "--base-url", fake.base_url], log=tmp_path / "first.txt", env=env)
            wait_until(lambda: pids.exists() and len(pids.read_text().split()) == 2, what="the command")
            started = [int(p) for p in pids.read_text().split()]
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            assert len(_scratch(tmp)) == 1 and all(_alive(p) for p in started)  # what a kill leaves
            resumed = start_ideaco(
                ["run", "--resume", out, *flags, "--base-url", fake.base_url],
                log=tmp_path / "again.txt",
                env=env,
            )
            assert finish(resumed, tmp_path / "again.txt") == 0, (tmp_path / "again.txt").read_text()
        assert _scratch(tmp) == []
        wait_until(lambda: not any(_alive(p) for p in started), what="the killed run's command to end")
        assert _files(out)[f"eng/{PATH}"].decode().startswith("# API spec (agent)\n\nwritten when run again")
    finally:
        for pid in started:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_kills_a_running_command_at_once_and_the_resume_redoes_the_think(
    tmp_path: Path, signum
) -> None:
    """Item 15: SIGTERM or Ctrl-C while a command runs (it would for 5 minutes): the command and its
    child are killed, ideaco exits promptly (143 / 130), no scratch folder is left, and the
    resumed run thinks again and runs the command again."""
    scenario, pids = _office(tmp_path)
    tmp, out = tmp_path / "tmp", tmp_path / "run"
    tmp.mkdir()
    env = {"TMPDIR": str(tmp)}
    flags = ["--model", "scripted", "--allow-agent-commands"]
    started: list[int] = []
    try:
        with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
            args = ["run", scenario, "--seed", "1", "--duration", "1h", "--out", out, *flags]
            log = tmp_path / "first.txt"
            proc = start_ideaco([*args, "--base-url", fake.base_url], log=log, env=env)
            wait_until(lambda: pids.exists() and len(pids.read_text().split()) == 2, what="the command")
            started = [int(p) for p in pids.read_text().split()]
            proc.send_signal(signum)
            assert finish(proc, log, deadline_s=30) == 128 + signum, log.read_text()
            wait_until(lambda: not any(_alive(p) for p in started), deadline_s=10, what="the command killed")
            assert _scratch(tmp) == []
            assert not (out / "workspace" / "eng" / PATH).exists()  # nothing written for the cut think
            again = tmp_path / "again.txt"
            resumed = start_ideaco(
                ["run", "--resume", out, *flags, "--base-url", fake.base_url], log=again, env=env
            )
            assert finish(resumed, again) == 0, again.read_text()
        assert _files(out)[f"eng/{PATH}"].decode().startswith("# API spec (agent)\n\nwritten when run again")
    finally:
        for pid in started:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
