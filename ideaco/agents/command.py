"""An agent employee's command: run once per document, never through a shell, bounded in time and output.

A scenario comes from anyone, so its `agent: {command: [...]}` runs only when the user allows it
(`--allow-agent-commands`); otherwise the outcome says in one line what would have run. When it
runs, it runs in a scratch copy of the department's workspace (what it does there is thrown away),
with an environment built from an allow-list (issue 37, item 2): `PATH`, `LANG`, `LC_*` and `TERM`
from the user's, a scratch `HOME` and `TMPDIR`, and only the variables the scenario's agent entry
names (`env: [NAME, ...]`); never one that holds the run's own `Secrets` (by name or by value). No
deny-list of the user's environment can catch a key base64-encoded, upper-cased or split in two:
nothing else of it is passed. The piece's description, the document's path and the relevant documents on stdin. What it
writes at the document's path in the scratch copy, or else its stdout, is the document's content,
scrubbed of the run's secrets like a model's answer. Its thinking, speaking, memory and relationships stay
the chat model's: this only produces a document's text.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Protocol

from ideaco.agents.scratch import scratch_folder
from ideaco.redact import NO_SECRETS, Secrets

MAX_OUTPUT_BYTES = 256 << 10  # what comes back: stdout, or the file it wrote
MAX_STDERR_BYTES = 4 << 10  # kept for the reason line only
MAX_STDIN_DOC_CHARS = 20_000  # each relevant document on stdin
MAX_STDIN_DOCS = 8
_POLL_S = 0.02
STOPPED = "the agent command was stopped: the run is stopping"
# What a command gets of the user's environment, whatever the scenario says: where programs are, the
# language and the terminal. HOME and TMPDIR are the command's own scratch folders.
PASSED_ENV = ("PATH", "LANG", "LANGUAGE", "LC_*", "TERM")


class AgentSpec(Protocol):
    """What `produce_document` needs of a scenario's `agent:` (scenario.AgentSettings)."""

    @property
    def command(self) -> Sequence[str]: ...

    @property
    def timeout_s(self) -> float: ...

    @property
    def env(self) -> Sequence[str]: ...  # the names of the user's variables it may see


@dataclass(frozen=True)
class AgentOutcome:
    """What one run of an agent command gave: the content (`ok`), or the one-line reason it did not."""

    ok: bool
    content: str | None
    reason: str  # "" when ok; a line the employee (and the log) reads otherwise
    ran: bool  # False: not allowed, so only described
    source: str = ""  # "file" or "stdout" when ok


def describe(command: Sequence[str]) -> str:
    """The command as a user would type it (quoted), for the line saying what would have run."""
    return shlex.join(command)


def clean_env(
    environ: Mapping[str, str],
    secrets: Secrets = NO_SECRETS,
    named: Sequence[str] = (),
    scratch: Path | None = None,
) -> dict[str, str]:
    """The command's environment: of `environ`, only PASSED_ENV and the variables `named` (the
    scenario's agent `env`), none that `secrets` names or whose value holds one of its values; with
    `scratch`, `HOME` and `TMPDIR` are folders in it."""
    allowed = set(named)
    env = {
        name: value
        for name, value in environ.items()
        if (name in allowed or any(fnmatch.fnmatchcase(name, pattern) for pattern in PASSED_ENV))
        and name.upper() not in secrets.names
        and not secrets.held_in(value)
    }
    if scratch is not None:
        for name, folder in (("HOME", scratch / "home"), ("TMPDIR", scratch / "tmp")):
            folder.mkdir(exist_ok=True)
            env[name] = str(folder)
    return env


def stdin_text(piece: str, path: str, documents: Mapping[str, str]) -> str:
    """What the command reads on stdin: the piece, the document's path, the relevant documents."""
    lines = [
        "# Task",
        piece.strip() or "(no description)",
        "",
        "# Document to write",
        f"{path}  (write it at this path in the current directory, or print it to stdout)",
    ]
    for name, text in list(documents.items())[:MAX_STDIN_DOCS]:
        body = text if len(text) <= MAX_STDIN_DOC_CHARS else text[:MAX_STDIN_DOC_CHARS] + "\n[...cut]"
        lines += ["", f"# Relevant document: {name}", body]
    return "\n".join(lines) + "\n"


def _relative(path: str) -> PurePosixPath | None:
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path or "\x00" in path:
        return None
    return pure


def _stop(proc: subprocess.Popen) -> None:
    """Kill the command's process group (its background children too), then reap the command."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def _exited(proc: subprocess.Popen) -> bool:
    """Whether the command has exited, left unreaped (`WNOWAIT`): while it is a zombie its pid, and
    so its process group's id, cannot be reused, and `_stop` kills only what it left running."""
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped already
        return True


def _run(
    argv: list[str],
    cwd: Path,
    stdin: Path,
    timeout_s: float,
    out: Path,
    err: Path,
    env: dict[str, str],
    cancel: threading.Event,
) -> str:
    """Run `argv` with stdin from a file (nothing to write, so nothing blocks before the deadline
    whether it reads it or not) and stdout and stderr to files; a reason if it timed out, wrote
    too much or was cancelled (`cancel` set: the run is stopping)."""
    with open(stdin, "rb") as given, open(out, "wb") as stdout, open(err, "wb") as stderr:
        try:
            proc = subprocess.Popen(  # noqa: S603 - argv from the scenario, allowed by the user, no shell
                argv,
                cwd=cwd,
                stdin=given,
                stdout=stdout,
                stderr=stderr,
                env=env,
                shell=False,
                start_new_session=True,
            )
        except OSError as exc:
            return f"the agent command could not start: {exc.strerror or exc}"
        try:
            deadline = time.monotonic() + timeout_s
            while not _exited(proc):
                if time.monotonic() > deadline:
                    return f"the agent command took longer than {timeout_s:g}s and was stopped"
                if out.stat().st_size > MAX_OUTPUT_BYTES:
                    return f"the agent command printed more than {MAX_OUTPUT_BYTES} bytes and was stopped"
                if cancel.wait(_POLL_S):
                    return STOPPED
        finally:
            _stop(proc)  # after every run: what it started in the background goes with it
    if proc.returncode < 0:  # killed by a signal (its own, or another's): whatever it printed is cut short
        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = f"signal {-proc.returncode}"
        return f"the agent command was killed by {name}"
    if proc.returncode != 0:
        tail = err.read_bytes()[-MAX_STDERR_BYTES:].decode("utf-8", "replace").strip().splitlines()
        return f"the agent command exited with {proc.returncode}" + (f": {tail[-1][:200]}" if tail else "")
    return ""


def _read(path: Path, what: str) -> tuple[str | None, str]:
    if path.stat().st_size > MAX_OUTPUT_BYTES:
        return None, f"the agent command's {what} is larger than {MAX_OUTPUT_BYTES} bytes"
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return None, f"the agent command's {what} is not UTF-8 text"
    if not text.strip():
        return None, f"the agent command's {what} is empty"
    return text, ""


def would_have_run(command: Sequence[str]) -> AgentOutcome:
    """The outcome of a command that may not run (no --allow-agent-commands): what would have run."""
    reason = f"would have run: {describe(command)} (agent commands run with --allow-agent-commands)"
    return AgentOutcome(False, None, reason, False)


def _lay_out(files: Mapping[str, str], target: Path) -> str:
    """The department's files (path -> text) written under `target`; a reason if one cannot be."""
    for name, text in files.items():
        relative = _relative(name)
        if relative is None:
            return f"{name!r} is not a relative path inside the workspace"
        dest = target / relative
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
    target.mkdir(parents=True, exist_ok=True)
    return ""


def produce_document(
    agent_spec: AgentSpec,
    files: Mapping[str, str],
    path: str,
    stdin: str,
    *,
    secrets: Secrets = NO_SECRETS,
    cancel: threading.Event | None = None,
) -> AgentOutcome:
    """Run the agent command for the document at `path`, in a scratch folder holding the
    department's `files` (path -> text), with `stdin` to read (`stdin_text`); its content, or why
    there is none. Nothing it does there outlives the run.

    Where `write_document` or `revise_document` takes the content a thought gave, an agent
    employee's comes from here, through `runner.CommandLLM` (`office/engine/agent_work.py` asks for it
    before the think is decided, and says what would have run without --allow-agent-commands): a
    refused outcome is the tool's refusal (its reason the employee reads), and the content lands in
    `applied` like any other, so a resume rebuilds it without running the command again and a
    replay answers it from the recording. `secrets`: the run's own, kept out of the command's
    environment and scrubbed from its outcome. `cancel`: set from another thread, it kills the
    command (and its process group) at once."""
    outcome = _produce(agent_spec, files, path, stdin, secrets, cancel or threading.Event())
    scrub = secrets.scrubber()
    if not scrub:
        return outcome
    content = scrub(outcome.content) if outcome.content is not None else None
    return replace(outcome, content=content, reason=scrub(outcome.reason))


def _produce(
    agent_spec: AgentSpec,
    files: Mapping[str, str],
    path: str,
    stdin: str,
    secrets: Secrets,
    cancel: threading.Event,
) -> AgentOutcome:
    argv = [str(part) for part in agent_spec.command]
    relative = _relative(path)
    if relative is None:
        return AgentOutcome(False, None, f"{path!r} is not a relative path inside the workspace", False)
    with scratch_folder() as tmp:
        scratch = tmp / "workspace"
        reason = _lay_out(files, scratch)
        if reason:
            return AgentOutcome(False, None, reason, False)
        target = scratch / relative
        before = target.read_bytes() if target.is_file() else None
        given, out, err = tmp / "stdin", tmp / "stdout", tmp / "stderr"
        given.write_text(stdin, encoding="utf-8")
        env = clean_env(os.environ, secrets, tuple(agent_spec.env), tmp)
        reason = _run(argv, scratch, given, agent_spec.timeout_s, out, err, env, cancel)
        if reason:
            return AgentOutcome(False, None, reason, True)
        wrote = (
            target.is_file()
            and not target.is_symlink()
            and (target.stat().st_size > MAX_OUTPUT_BYTES or target.read_bytes() != before)
        )
        source = "file" if wrote else "stdout"
        content, reason = _read(target if wrote else out, source)
        if content is None:
            return AgentOutcome(False, None, reason, True)
        return AgentOutcome(True, content, "", True, source)
