"""Keys go only where the user sent them (issue 11, item 4).

A scenario file may come from anyone. It may name an endpoint (`llm.base_url`) and a model, but
the user's own flags and environment decide which key goes where: the user's key reaches a
scenario-chosen host only with `--trust-scenario-endpoint`, or when the user configured that same
host; a scenario cannot name the environment variable to send. URL credentials never show, and
scrubbing replaces whole secrets only, long enough to be secrets, leaving ordinary answers intact.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer
from tests.faults.processes import finish, is_stopped, one_error_line, start_ideaco, wait_until
from tests.faults.test_secrets import EchoingServer

KEY = "sk-user-own-KEY-4242"
GITHUB = "ghp_user_github_token_0000"
SCENARIO = """\
company: Acme Labs
duration: 10m
start: "2026-01-05T09:00:00"
{llm}employees:
  - {{id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}}
script:
  - {{at: "00:00", to: "boss:alice", text: "Alice, REST or GraphQL?"}}
"""


def said(text: str) -> dict[str, Any]:
    return {
        "innerThoughts": "ok",
        "topicSaturation": 3,
        "interestLevel": 6,
        "shouldSpeak": True,
        "reason": "asked",
        "messages": [{"content": text}],
    }


def quiet(_body: dict) -> dict[str, Any]:
    return said("fine")


def write_scenario(tmp_path: Path, llm: str = "") -> Path:
    path = tmp_path / "office.yaml"
    path.write_text(SCENARIO.format(llm=llm))
    return path


def everything_under(*paths: Path) -> str:
    """The text of every file under these paths (hidden ones included)."""
    out = []
    for path in paths:
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        out += [p.read_text(errors="replace") for p in files]
    return "\n".join(out)


@pytest.fixture
def endpoint():
    with EchoingServer() as server:
        server.handler = quiet
        yield server


# --- which key goes where -------------------------------------------------------------------------


def test_a_scenario_endpoint_gets_no_key_of_the_user_by_default(ideaco, tmp_path, endpoint) -> None:
    scenario = write_scenario(tmp_path, f"llm: {{base_url: {endpoint.base_url}}}\n")
    out = tmp_path / "run"
    result = ideaco("run", scenario, "--out", out, env={"OPENAI_API_KEY": KEY})
    assert result.exit_code == 0, result.output
    assert endpoint.requests, "the scenario's endpoint was used"
    assert endpoint.seen_auth == {"Bearer sk-no-key"}, endpoint.seen_auth
    assert "OPENAI_API_KEY is not sent to" in result.output and "--trust-scenario-endpoint" in result.output
    assert KEY not in result.output + everything_under(out)


@pytest.mark.parametrize(
    ("how", "flags", "env"),
    [
        ("with --trust-scenario-endpoint", ["--trust-scenario-endpoint"], {}),
        ("the user configured the same host", [], {"OPENAI_BASE_URL": "{url}"}),
        ("the same host, another path", [], {"IDEACO_BASE_URL": "{origin}/other/v1"}),
    ],
)
def test_the_key_goes_to_a_scenario_endpoint_only_with_the_users_consent(
    ideaco, tmp_path, endpoint, how, flags, env
) -> None:
    scenario = write_scenario(tmp_path, f"llm: {{base_url: {endpoint.base_url}}}\n")
    origin = endpoint.base_url.removesuffix("/v1")
    env = {k: v.format(url=endpoint.base_url, origin=origin) for k, v in env.items()}
    result = ideaco("run", scenario, "--out", tmp_path / "run", *flags, env={"OPENAI_API_KEY": KEY, **env})
    assert result.exit_code == 0, result.output
    assert endpoint.seen_auth == {f"Bearer {KEY}"}, how
    assert "is not sent to" not in result.output


def test_a_user_endpoint_on_another_port_is_not_consent(ideaco, tmp_path, endpoint) -> None:
    scenario = write_scenario(tmp_path, f"llm: {{base_url: {endpoint.base_url}}}\n")
    elsewhere = f"http://127.0.0.1:{endpoint.port + 1 if endpoint.port < 65535 else 1}/v1"
    result = ideaco(
        "run", scenario, "--out", tmp_path / "run", env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": elsewhere}
    )
    assert result.exit_code == 0, result.output
    assert endpoint.seen_auth == {"Bearer sk-no-key"}


def test_the_users_base_url_beats_the_scenarios_and_gets_the_key(ideaco, tmp_path, endpoint) -> None:
    with FakeOpenAIServer(handler=quiet) as scenario_host:
        scenario = write_scenario(tmp_path, f"llm: {{base_url: {scenario_host.base_url}}}\n")
        result = ideaco(
            "run",
            scenario,
            "--out",
            tmp_path / "run",
            "--base-url",
            endpoint.base_url,
            env={"OPENAI_API_KEY": KEY},
        )
    assert result.exit_code == 0, result.output
    assert not scenario_host.requests, "the scenario's host was contacted"
    assert endpoint.seen_auth == {f"Bearer {KEY}"}


def test_a_scenario_cannot_pick_the_variable_sent_as_the_key(ideaco, tmp_path, endpoint) -> None:
    scenario = write_scenario(
        tmp_path, f"llm: {{base_url: {endpoint.base_url}, api_key_env: GITHUB_TOKEN}}\n"
    )
    out = tmp_path / "run"
    line = one_error_line(ideaco("run", scenario, "--out", out, env={"GITHUB_TOKEN": GITHUB}))
    assert f"{scenario}: llm.api_key_env: a scenario cannot choose which environment variable" in line, line
    assert "--api-key-env" in line and GITHUB not in line
    assert not endpoint.requests and not out.exists()


def test_a_refusal_of_the_withheld_key_says_how_to_send_it(ideaco, tmp_path, endpoint) -> None:
    endpoint.handler = lambda body: ErrorReply(401, "missing API key")
    scenario = write_scenario(tmp_path, f"llm: {{base_url: {endpoint.base_url}}}\n")
    out = tmp_path / "run"
    result = ideaco("run", scenario, "--out", out, env={"OPENAI_API_KEY": KEY})
    line = one_error_line(result)
    assert "refused the request (HTTP 401)" in line and "--trust-scenario-endpoint" in line, line
    assert endpoint.seen_auth == {"Bearer sk-no-key"}
    assert KEY not in result.output + everything_under(out)
    assert (out / "state.json").exists()  # a stop, not a crash: the run can be resumed with the flag


# --- URL credentials ----------------------------------------------------------------------------------

PASSWORD = "pa55-w0rd-S3CRET"


def with_credentials(url: str) -> str:
    return url.replace("http://", f"http://alice:{PASSWORD}@")


def test_url_credentials_never_show_in_output_files_or_errors(ideaco, tmp_path, endpoint) -> None:
    endpoint.handler = lambda body: said(f"your password is {PASSWORD}, right?")  # an echoing endpoint
    scenario = write_scenario(tmp_path)
    out, record = tmp_path / "run", tmp_path / "calls.jsonl"
    url = with_credentials(endpoint.base_url)
    result = ideaco("run", scenario, "--out", out, "--base-url", url, "--record", record)
    assert result.exit_code == 0, result.output
    assert f"via http://***@127.0.0.1:{endpoint.port}/v1" in result.output
    texts = json.loads((out / "messages.jsonl").read_text().splitlines()[-1])["text"]
    assert texts == "your password is ***, right?"
    assert PASSWORD not in result.output + everything_under(out, record)

    unreachable = with_credentials("http://127.0.0.1:9/v1")
    line = one_error_line(ideaco("run", scenario, "--out", tmp_path / "other", "--base-url", unreachable))
    assert "cannot reach the model endpoint http://***@127.0.0.1:9/v1" in line, line
    assert PASSWORD not in line


def test_the_lock_holders_command_line_hides_url_credentials(ideaco, tmp_path, endpoint) -> None:
    scenario = write_scenario(tmp_path)
    out, log = tmp_path / "run", tmp_path / "first.txt"
    url = with_credentials(endpoint.base_url)
    first = start_ideaco(
        ["run", scenario, "--out", out, "--base-url", url], log=log, pause_at=("checkpoint", 2)
    )
    wait_until(lambda: is_stopped(first), what="the first run to pause")
    try:
        line = one_error_line(ideaco("run", "--resume", out, "--base-url", endpoint.base_url))
        assert f"pid {first.pid}" in line and "http://***@127.0.0.1" in line, line
        assert PASSWORD not in line and PASSWORD not in (out / ".ideaco-writer.json").read_text()
    finally:
        first.send_signal(signal.SIGCONT)
    assert finish(first, log) == 0, log.read_text()
    assert PASSWORD not in log.read_text()


# --- scrubbing -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["1", "true", "abc", "sk-1"])
def test_a_key_too_short_to_be_a_secret_does_not_corrupt_answers(ideaco, tmp_path, endpoint, key) -> None:
    text = "Option 1 is true: abc sk-1 wins, 100%"
    endpoint.handler = lambda body: said(text)
    out = tmp_path / "run"
    result = ideaco(
        "run",
        write_scenario(tmp_path),
        "--out",
        out,
        "--base-url",
        endpoint.base_url,
        env={"OPENAI_API_KEY": key},
    )
    assert result.exit_code == 0, result.output
    assert endpoint.seen_auth == {f"Bearer {key}"}
    spoken = [json.loads(line)["text"] for line in (out / "messages.jsonl").read_text().splitlines()]
    assert text in spoken, spoken


def test_a_real_key_is_scrubbed_wherever_it_is_echoed_whole(ideaco, tmp_path, endpoint) -> None:
    endpoint.handler = lambda body: said(f"key={KEY}; again:{KEY}x. sk-user-own-docs is not it")
    out = tmp_path / "run"
    result = ideaco(
        "run",
        write_scenario(tmp_path),
        "--out",
        out,
        "--base-url",
        endpoint.base_url,
        env={"OPENAI_API_KEY": KEY},
    )
    assert result.exit_code == 0, result.output
    spoken = [json.loads(line)["text"] for line in (out / "messages.jsonl").read_text().splitlines()]
    assert "key=***; again:***x. sk-user-own-docs is not it" in spoken, spoken
    assert KEY not in everything_under(out) + result.output
