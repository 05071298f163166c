"""Real `ideaco` processes for the fault suite: start one, pause it at a chosen point, watch it.

    proc = start_ideaco(["run", scenario, "--out", out, ...], log=tmp_path / "a.txt", pause_at=("checkpoint", 1))
    wait_until(lambda: is_stopped(proc))     # it stopped itself (SIGSTOP) at its first state save
    ...                                      # the run directory is held and stable: try a second writer
    proc.send_signal(signal.SIGCONT)

Pause points: "checkpoint" (a state save, before it writes) and "rename" (state.json's temp file
written, not yet renamed into place). Waiting is polling with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 60.0
POLL_S = 0.01

PAUSE_TRAP = """
import os, signal, sys
from ideaco.store import state
point, n = sys.argv[1], int(sys.argv[2])
reached = 0
def trap(name):
    global reached
    if name == point:
        reached += 1
        if reached == n:
            os.kill(os.getpid(), signal.SIGSTOP)
save, replace = state.StateStore.save, os.replace
def trapped_save(self, data):
    trap("checkpoint")
    return save(self, data)
def trapped_replace(src, dst):
    if str(dst).endswith("state.json"):
        trap("rename")
    return replace(src, dst)
state.StateStore.save, os.replace = trapped_save, trapped_replace
if os.environ.get("TRAP_SAVE_EACH_THOUGHT"):
    # As with a model that takes seconds a thought: a save after every thought, so the n-th save
    # is a known moment of the run whatever the machine's load (saves are spaced by wall time).
    from ideaco.office.engine.persistence import Saves
    Saves.SHARE = float("inf")
sys.argv = ["ideaco", *sys.argv[3:]]
from ideaco.cli.main import app
app(sys.argv[1:], prog_name="ideaco")
"""


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This environment without any endpoint, key or resilience setting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IDEACO_", "OPENAI_"))}
    env["PYTHONPATH"] = str(ROOT)
    return {**env, **(extra or {})}


def start_ideaco(
    args: list[str | Path],
    *,
    log: Path,
    pause_at: tuple[str, int] | None = None,
    save_each_thought: bool = False,
    env: dict[str, str] | None = None,
    stdin: int | None = subprocess.DEVNULL,
    cwd: Path = ROOT,
) -> subprocess.Popen:
    """`ideaco ARGS` as a real process, its output in `log`; optionally stopping itself at a point
    (with `save_each_thought`, state.json is saved after every thought, so a checkpoint's number
    names the same moment of the run on any machine)."""
    argv = [str(a) for a in args]
    if save_each_thought:
        env = {**(env or {}), "TRAP_SAVE_EACH_THOUGHT": "1"}
    if pause_at is None:
        command = [sys.executable, "-m", "ideaco", *argv]
    else:
        command = [sys.executable, "-c", PAUSE_TRAP, pause_at[0], str(pause_at[1]), *argv]
    with open(log, "wb") as out:  # the child keeps its own handle
        return subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=stdin, env=clean_env(env), cwd=cwd
        )


def wait_until(condition: Callable[[], bool], deadline_s: float = DEADLINE_S, what: str = "") -> None:
    """Poll `condition` until it holds; fail after `deadline_s`."""
    deadline = time.monotonic() + deadline_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what or condition}"
        time.sleep(POLL_S)


def is_stopped(proc: subprocess.Popen) -> bool:
    """True once the process is stopped (SIGSTOP); fails if it exited instead."""
    assert proc.poll() is None, f"the process exited ({proc.returncode}) instead of pausing"
    stat = Path(f"/proc/{proc.pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] == "T"


def finish(proc: subprocess.Popen, log: Path, deadline_s: float = DEADLINE_S) -> int:
    """Wait for the process to end; its exit code (the output is in the assertion message otherwise)."""
    try:
        return proc.wait(timeout=deadline_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"the process did not finish: {log.read_text(errors='replace')}") from None


def one_error_line(result) -> str:
    """The single line a user sees from an in-process CLI call: exit 2, `ideaco: error: ...`, no traceback."""
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ideaco: error: "), lines[0]
    return lines[0]


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under a directory (hidden ones included) with its bytes and modification time."""
    return {
        str(p.relative_to(directory)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(directory.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }
