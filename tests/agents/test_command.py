"""An agent employee's command (issue 20, item 6): a small scripted python command stands in for a CLI agent."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ideaco.agents import command
from ideaco.agents.command import AgentOutcome, clean_env, produce_document, stdin_text, would_have_run
from ideaco.redact import Secrets


@dataclass(frozen=True)
class Spec:
    command: tuple[str, ...]
    timeout_s: float = 10.0
    env: tuple[str, ...] = ()


def script(code: str, timeout_s: float = 10.0) -> Spec:
    return Spec((sys.executable, "-c", code), timeout_s)


@pytest.fixture
def workspace() -> dict[str, str]:
    """The department's files, as the office hands them to the command (path -> text)."""
    return {"docs/spec.md": "# Spec\nold\n"}


def make(
    spec: Spec, files: dict[str, str], piece: str, path: str, documents: dict[str, str], **kw
) -> AgentOutcome:
    """The document the command makes, reading what the office gives it on stdin."""
    return produce_document(spec, files, path=path, stdin=stdin_text(piece, path, documents), **kw)


def test_stdout_is_the_content_and_stdin_carries_the_piece(workspace: dict[str, str]) -> None:
    spec = script(
        "import sys; text = sys.stdin.read(); print('GOT ' + str('Write the API' in text and 'api.md' in text and 'the brief' in text))"
    )
    outcome = make(spec, workspace, "Write the API", "docs/api.md", {"brief.md": "the brief"})
    assert outcome.ok and outcome.ran and outcome.source == "stdout"
    assert outcome.content == "GOT True\n"


def test_a_file_written_at_the_path_wins_and_the_workspace_is_untouched(workspace: dict[str, str]) -> None:
    spec = script("open('docs/spec.md', 'w').write('# Spec\\nnew\\n'); print('noise')")
    outcome = make(spec, workspace, "Revise the spec", "docs/spec.md", {})
    assert outcome.ok and outcome.source == "file"
    assert outcome.content == "# Spec\nnew\n"
    assert workspace == {"docs/spec.md": "# Spec\nold\n"}  # it wrote in a scratch copy


def test_without_the_flag_nothing_runs_and_one_line_says_what_would_have(tmp_path: Path) -> None:
    """What `office/engine/agent_work.py` answers, instead of a run, without --allow-agent-commands."""
    marker = tmp_path / "ran"
    spec = script(f"open({str(marker)!r}, 'w').write('x')")
    outcome = would_have_run(spec.command)
    assert not outcome.ok and not outcome.ran and outcome.content is None
    assert outcome.reason.startswith("would have run: ") and "--allow-agent-commands" in outcome.reason
    assert "\n" not in outcome.reason
    assert not marker.exists()


def test_a_slow_command_is_stopped(workspace: dict[str, str]) -> None:
    outcome = make(script("import time; time.sleep(30)", 0.5), workspace, "x", "a.md", {})
    assert not outcome.ok and outcome.ran and "longer than 0.5s" in outcome.reason


def test_the_deadline_holds_when_the_command_never_reads_a_stdin_larger_than_a_pipe(
    workspace: dict[str, str],
) -> None:
    """Issue 28, item 4: ~160 KB on stdin (more than a pipe holds), a command that never reads it."""
    documents = {f"d{i}.md": "z" * command.MAX_STDIN_DOC_CHARS for i in range(command.MAX_STDIN_DOCS)}
    assert len(stdin_text("x", "a.md", documents)) > 128 << 10
    done: list = []
    worker = threading.Thread(
        target=lambda: done.append(
            make(script("import time; time.sleep(60)", 0.5), workspace, "x", "a.md", documents)
        ),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=20)  # the deadline: 0.5 s and the kill; far less than the command's minute
    assert done, "the command's timeout never fired"
    assert not done[0].ok and "longer than 0.5s" in done[0].reason


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _wait_until(condition, deadline_s: float = 20.0) -> bool:
    deadline = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_commands_background_children_end_with_it_even_when_it_succeeds(
    workspace: dict[str, str], tmp_path: Path
) -> None:
    """Issue 28, item 16: the process group is killed after every run, not only after a timeout."""
    pid_file = tmp_path / "child.pid"
    code = (
        "import subprocess, sys; "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
        f"open({str(pid_file)!r}, 'w').write(str(child.pid)); print('done')"
    )
    outcome = make(script(code), workspace, "x", "a.md", {})
    assert outcome.ok and outcome.content == "done\n"
    child = int(pid_file.read_text())
    try:
        assert _wait_until(lambda: not _alive(child)), "the command's background child outlived it"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def test_a_command_killed_by_a_signal_is_not_a_success(workspace: dict[str, str]) -> None:
    code = "import os, signal; print('half a document', flush=True); os.kill(os.getpid(), signal.SIGKILL)"
    outcome = make(script(code), workspace, "x", "a.md", {})
    assert not outcome.ok and outcome.content is None and outcome.ran
    assert outcome.reason == "the agent command was killed by SIGKILL"


def test_too_much_output_is_refused(workspace: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command, "MAX_OUTPUT_BYTES", 1000)
    outcome = make(script("import sys; sys.stdout.write('x' * 5000)"), workspace, "x", "a.md", {})
    assert not outcome.ok and outcome.content is None and "than 1000 bytes" in outcome.reason


def test_a_failing_or_silent_command_gives_its_reason(workspace: dict[str, str]) -> None:
    failed = make(script("import sys; sys.exit('no credits left')"), workspace, "x", "a.md", {})
    assert not failed.ok and failed.reason == "the agent command exited with 1: no credits left"
    silent = make(script("pass"), workspace, "x", "a.md", {})
    assert not silent.ok and "empty" in silent.reason
    missing = make(Spec(("/no/such/agent",)), workspace, "x", "a.md", {})
    assert not missing.ok and "could not start" in missing.reason


def test_never_through_a_shell(workspace: dict[str, str], tmp_path: Path) -> None:
    marker = tmp_path / "shell"
    spec = Spec((sys.executable, "-c", "import sys; print(sys.argv[1])", f"; touch {marker}"))
    outcome = make(spec, workspace, "x", "a.md", {})
    assert outcome.content == f"; touch {marker}\n"
    assert not marker.exists()


def test_the_environment_is_an_allow_list(workspace: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37, item 2: the red team's encodings of the key pass any deny-list (base64, upper-cased,
    split across two variables, another URL holding the password percent-encoded); none reaches
    the command, nor any other variable of the user's but PATH, LANG, LC_*, TERM and those the
    scenario's agent entry names; HOME and TMPDIR are the command's own scratch folders."""
    key = "sk-live-0123456789abcdef"
    hostile = {
        "OPENAI_API_KEY": key,
        "B64": "c2stbGl2ZS0wMTIzNDU2Nzg5YWJjZGVm",
        "UPPER": key.upper(),
        "HALF_A": key[:12],
        "HALF_B": key[12:],
        "OTHER_URL": "https://ann:p%40ss@llm.example/v1",
        "IDEACO_MODEL": "ideaco-model-value",
        "KEEP_ME": "kept-value",
    }
    for name, value in hostile.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("SHOWN", "shown-value")
    code = "import json, os; print(json.dumps(dict(os.environ), sort_keys=True))"
    outcome = make(Spec((sys.executable, "-c", code), env=("SHOWN",)), workspace, "x", "a.md", {})
    assert outcome.ok, outcome.reason
    env = json.loads(outcome.content)
    assert set(env) - {"PATH", "LANG", "LC_ALL", "TERM", "LC_CTYPE"} == {"HOME", "TMPDIR", "SHOWN"}
    assert env["SHOWN"] == "shown-value" and env["LANG"] == "C.UTF-8"
    assert Path(env["HOME"]).name == "home" and Path(env["TMPDIR"]).name == "tmp"
    assert not Path(env["HOME"]).exists()  # the scratch folder is gone once the command is done
    assert not any(v in outcome.content for v in hostile.values())


def test_clean_env_keeps_only_the_allow_list_and_the_named() -> None:
    environ = {"PATH": "/bin", "LC_TIME": "C", "TERM": "xterm", "HOMEBREW": "x", "FOO": "bar", "Path": "p"}
    assert clean_env(environ) == {"PATH": "/bin", "LC_TIME": "C", "TERM": "xterm"}
    assert clean_env(environ, named=("FOO",)) == {"PATH": "/bin", "LC_TIME": "C", "TERM": "xterm", "FOO": "bar"}


def test_clean_env_never_passes_the_runs_secrets_even_when_named() -> None:
    """Issue 28, item 3 still holds: by name (the key's variable) and by value (the key, the URL's
    credentials, wherever they sit), a variable the scenario names is not passed."""
    secrets = Secrets.of(["mycred"], ["the-key-0123456789"], ["http://ann:pw@llm.example/v1"])
    environ = {
        "MYCRED": "whatever",
        "HARMLESS": "/usr/bin",
        "COPY": "prefix the-key-0123456789 suffix",
        "ENDPOINT": "http://ann:pw@llm.example/v1",
        "PATH": "/bin:the-key-0123456789",
    }
    named = ("MYCRED", "HARMLESS", "COPY", "ENDPOINT")
    assert clean_env(environ, secrets, named) == {"HARMLESS": "/usr/bin"}


def test_the_outcome_is_scrubbed_of_the_runs_secrets(workspace: dict[str, str]) -> None:
    secrets = Secrets.of([], ["the-key-0123456789"], [])
    spec = script("import sys; print('I found the-key-0123456789'); sys.exit('no: the-key-0123456789')")
    outcome = make(spec, workspace, "x", "a.md", {}, secrets=secrets)
    assert outcome.reason == "the agent command exited with 1: no: ***"
    printed = script("print('I found the-key-0123456789')")
    assert make(printed, workspace, "x", "a.md", {}, secrets=secrets).content == "I found ***\n"


def test_hostile_paths_are_refused_before_anything_runs(workspace: dict[str, str], tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    spec = script(f"open({str(marker)!r}, 'w').write('x')")
    for path in ("/etc/passwd", "../outside.md", "", "a\\b.md", "a\x00b.md"):
        outcome = make(spec, workspace, "x", path, {})
        assert not outcome.ok and not outcome.ran
    assert not marker.exists()


def test_a_link_written_at_the_path_is_not_followed(workspace: dict[str, str], tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("private", encoding="utf-8")
    spec = script(f"import os; os.symlink({str(secret)!r}, 'a.md'); print('from stdout')")
    outcome = make(spec, workspace, "x", "a.md", {})
    assert outcome.content == "from stdout\n"


def test_stdin_bounds_each_document() -> None:
    text = stdin_text("piece", "a.md", {"big.md": "z" * (command.MAX_STDIN_DOC_CHARS + 10)})
    assert text.count("z") == command.MAX_STDIN_DOC_CHARS and "[...cut]" in text


def test_stdin_carries_a_document_of_20000_characters_whole_and_cuts_a_longer_one() -> None:
    whole = stdin_text("piece", "a.md", {"big.md": "z" * 20_000})
    assert whole.count("z") == 20_000 and "[...cut]" not in whole
    cut = stdin_text("piece", "a.md", {"big.md": "z" * 20_001})
    assert cut.count("z") == 20_000 and cut.endswith("z\n[...cut]\n")


def test_stdin_carries_eight_relevant_documents_at_most() -> None:
    text = stdin_text("piece", "a.md", {f"d{i}.md": f"text {i}" for i in range(9)})
    assert [line for line in text.splitlines() if line.startswith("# Relevant document: ")] == [
        f"# Relevant document: d{i}.md" for i in range(8)
    ]


def test_stdin_says_so_when_the_piece_has_no_description() -> None:
    assert stdin_text("  ", "docs/a.md", {}) == (
        "# Task\n(no description)\n\n# Document to write\n"
        "docs/a.md  (write it at this path in the current directory, or print it to stdout)\n"
    )


def test_the_command_runs_among_every_file_of_the_department() -> None:
    files = {"docs/spec.md": "the spec", "docs/plan.md": "the plan", "README.md": "read me"}
    code = (
        "import pathlib; print(sorted((p.as_posix(), p.read_text()) for p in pathlib.Path('.').rglob('*')"
        " if p.is_file()))"
    )
    outcome = make(script(code), files, "x", "docs/api.md", {})
    assert outcome.content == repr(sorted(files.items())) + "\n"


def test_a_department_file_that_is_no_relative_path_is_refused_before_anything_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    outcome = make(script(f"open({str(marker)!r}, 'w').write('x')"), {"../escape.md": "x"}, "x", "a.md", {})
    assert outcome == AgentOutcome(
        False, None, "'../escape.md' is not a relative path inside the workspace", False
    )
    assert not marker.exists()


def test_a_command_that_prints_nothing_ran_and_gives_no_document(workspace: dict[str, str]) -> None:
    assert make(script("pass"), workspace, "x", "a.md", {}) == AgentOutcome(
        False, None, "the agent command's stdout is empty", True
    )


def test_256_kib_of_output_is_a_document_and_one_byte_more_is_not(workspace: dict[str, str]) -> None:
    """The bound holds while it runs (a command that lingers after printing exactly 256 KiB is not
    stopped) and on what it left (262,145 bytes printed at once is refused)."""
    lingers = "import sys, time; sys.stdout.write('x' * 262144); sys.stdout.flush(); time.sleep(0.3)"
    kept = make(script(lingers), workspace, "x", "a.md", {})
    assert kept.ok and len(kept.content) == 262144
    over = make(script("import sys; sys.stdout.write('x' * 262145)"), workspace, "x", "a.md", {})
    assert not over.ok and over.content is None and over.ran  # seen while it ran, or in what it left:
    assert over.reason in (
        "the agent command's stdout is larger than 262144 bytes",
        "the agent command printed more than 262144 bytes and was stopped",
    )
    going_on = "import sys, time; sys.stdout.write('x' * 262145); sys.stdout.flush(); time.sleep(30)"
    stopped = make(script(going_on), workspace, "x", "a.md", {})
    assert stopped.reason == "the agent command printed more than 262144 bytes and was stopped"


def test_a_file_the_command_left_as_it_was_is_not_its_document_whatever_its_size() -> None:
    files = {"a.md": "x" * 262144}  # as large as a document may come back
    outcome = make(script("print('from stdout')"), files, "x", "a.md", {})
    assert (outcome.content, outcome.source) == ("from stdout\n", "stdout")


def test_a_failure_gives_200_characters_of_the_last_line_in_the_last_4_kib_of_stderr(
    workspace: dict[str, str],
) -> None:
    code = "import sys; sys.stderr.write('early line\\n' + 'A' * 1000 + 'B' * 4000); sys.exit(3)"
    failed = make(script(code), workspace, "x", "a.md", {})
    assert failed.reason == "the agent command exited with 3: " + "A" * 96 + "B" * 104


def test_a_scenario_employee_names_its_agent_command() -> None:
    from ideaco.scenario import Scenario

    data = {
        "company": "Acme",
        "employees": [
            {
                "id": "ann",
                "name": "Ann",
                "role": "Engineer",
                "archetype": "old-hand",
                "agent": {"command": ["codex", "exec", "-"], "timeout": "5m"},
            }
        ],
    }
    scenario = Scenario.model_validate(data)
    agent = scenario.employees[0].agent
    assert agent is not None and agent.command == ["codex", "exec", "-"] and agent.timeout_s == 300
    assert Scenario.model_validate(scenario.to_dict()).employees[0].agent == agent
    for bad in ({"command": []}, {"command": ["x"], "timeout": "0s"}, {"command": ["x"], "timeout": "3h"}):
        data["employees"][0]["agent"] = bad
        with pytest.raises(ValueError):
            Scenario.model_validate(data)


def test_without_the_flag_the_run_says_in_one_line_what_would_have_run() -> None:
    from ideaco.scenario import Scenario
    from ideaco.session import agent_notice

    agent = {"command": ["my agent", "--write"]}
    scenario = Scenario.model_validate(
        {
            "company": "Acme",
            "employees": [
                {"id": "ann", "name": "Ann", "role": "Dev", "archetype": "idealist", "agent": agent}
            ],
        }
    )
    lines: list[str] = []
    agent_notice(scenario, False, lines.append)
    assert lines == ["Ann (ann) would have run 'my agent' --write (not run without --allow-agent-commands)"]
    agent_notice(scenario, True, lines.append)
    assert len(lines) == 1


def test_the_office_knows_its_agent_employees_and_a_resume_too() -> None:
    from ideaco.office.rules.config import config_for
    from ideaco.scenario import Scenario

    data = {
        "company": "Acme",
        "employees": [
            {"id": "ann", "name": "Ann", "role": "Dev", "archetype": "idealist", "agent": {"command": ["w"]}},
            {"id": "bo", "name": "Bo", "role": "Dev", "archetype": "idealist"},
        ],
    }
    scenario = Scenario.model_validate(data)
    for config in (config_for(scenario), config_for(Scenario.model_validate(scenario.to_dict()))):
        agent = config.agents.get("ann")
        assert agent is not None and list(agent.command) == ["w"] and agent.timeout_s == 600
        assert config.agents.get("bo") is None
