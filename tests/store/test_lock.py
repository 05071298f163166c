"""The one-writer lock, as readers see it: whether a live process writes a run directory."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from ideaco.store.lock import WRITER_FILE, RunLock, writer_alive


def test_a_live_holder_writes_the_directory_until_it_releases(tmp_path: Path):
    assert not writer_alive(tmp_path)
    lock = RunLock.acquire(tmp_path)
    lock.announce("ideaco run")
    assert writer_alive(tmp_path)
    lock.release()
    assert not writer_alive(tmp_path)


def test_a_killed_holder_not_yet_reaped_does_not_count(tmp_path: Path):
    """A process killed with SIGKILL is a zombie until its parent waits for it: it answers signal 0."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / WRITER_FILE).write_text(json.dumps({"pid": child.pid}), encoding="utf-8")
        assert writer_alive(tmp_path)
        child.kill()
        deadline = time.monotonic() + 10
        while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert not writer_alive(tmp_path)  # dead, though not reaped
    finally:
        child.kill()
        child.wait()


def test_a_killed_holders_details_do_not_count(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = int(done.stdout)  # that process has exited
    (tmp_path / WRITER_FILE).write_text(json.dumps({"pid": dead, "command": "ideaco run"}), encoding="utf-8")
    assert not writer_alive(tmp_path)
