"""Flaky endpoints, end to end through `ideaco run` (or the session API) and the fake endpoint (issue 6, item 2).

Connection refused, timeouts, 429 with Retry-After, 500s, very slow answers, an endpoint that
refuses json_schema. Retries back off and honour Retry-After (waits are recorded, not slept,
by the `retry_sleeps` fixture); when they run out the thought is logged with gate `error`, the
employee looks again later for the same reason, the run goes on, and summary.json counts the
failures by kind.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ideaco.session import ModelOptions, open_new
from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer, Reply, _ChatHandler
from tests.faults.conftest import asked, read_jsonl

SCENARIO = """\
company: Acme Labs
duration: 20m
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
rooms:
  - {id: api-design, name: API design, kind: work, members: [alice, bob]}
script:
  - {at: "00:00", to: "boss:alice", text: "Alice, is the API on track?"}
  - {at: "00:00", to: "boss:bob", text: "Bob, is the API on track?"}
"""
RETRY_AFTER_CAP = 60.0  # RetryingLLM's default max_delay * 2


def answer(body: dict) -> dict[str, Any]:
    """Answer the boss when something is unread in a 1-on-1, else stay silent."""
    request = asked(body)
    speak = bool(request.unread) and request.scene.startswith("Boss and ")
    return {
        "innerThoughts": "checking",
        "topicSaturation": 2,
        "interestLevel": 8,
        "shouldSpeak": speak,
        "reason": "test",
        "messages": [{"content": f"{request.name}: yes, on track."}] if speak else [],
    }


class Faults:
    """Alice's first `count` requests get `fault` (a spec, or a callable of the body); all else `answer`.

    One employee only: Bob's calls run concurrently and must not use up (or share) the faults.
    """

    def __init__(self, fault: Any, count: int, who: str = "Alice") -> None:
        self.fault, self.left, self.who = fault, count, who
        self.lock = threading.Lock()
        self.arrivals: list[float] = []  # when each of Alice's requests arrived

    def __call__(self, body: dict) -> Any:
        if asked(body).name != self.who:
            return answer(body)
        with self.lock:
            self.arrivals.append(time.monotonic())
            faulty = self.left > 0
            self.left -= 1
        if not faulty:
            return answer(body)
        return self.fault(body) if callable(self.fault) else self.fault


def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "office.yaml"
    path.write_text(SCENARIO)
    return path


def run(ideaco, tmp_path: Path, handler: Callable, env: dict[str, str] | None = None, *args: str):
    out = tmp_path / "run"
    with FakeOpenAIServer(handler=handler) as fake:
        result = ideaco(
            "run",
            scenario(tmp_path),
            "--base-url",
            fake.base_url,
            "--out",
            out,
            "--seed",
            "3",
            *args,
            env=env,
        )
    assert result.exit_code == 0, result.output
    return out, fake, result


def assert_recovered(out: Path, kind: str, failed_thoughts: int = 1) -> list[dict[str, Any]]:
    """The failed thoughts are logged with gate error; each employee still answered the boss; none lost."""
    thoughts = read_jsonl(out / "thoughts.jsonl")
    errors = [t for t in thoughts if t["gate"] == "error"]
    assert len(errors) == failed_thoughts, [t.get("error") for t in errors]
    for error in errors:
        assert error["thought"] is None and error["error"]
        at, again = datetime.fromisoformat(error["at"]), datetime.fromisoformat(error["next_look_at"])
        assert again - at >= timedelta(seconds=150)
        # Later the same employee looks again, for the same reason, and (once it works) answers.
        later = [t for t in thoughts if t["employee"] == error["employee"] and t["at"] > error["at"]]
        assert later, f"{error['employee']} never tried again"
        retry = later[0]
        assert retry["conversation"] == error["conversation"]
        assert retry["trigger"] == error["trigger"] == "boss"
        assert retry["at"] >= error["next_look_at"]
        assert any(t["spoke"] and t["conversation"] == error["conversation"] for t in later)
    messages = read_jsonl(out / "messages.jsonl")
    for who in ("alice", "bob"):
        assert any(m["sender"] == who and m["conversation"] == f"boss:{who}" for m in messages), who
    assert len({m["id"] for m in messages}) == len(messages)
    assert len({t["id"] for t in thoughts}) == len(thoughts)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errors_by_kind"] == {kind: failed_thoughts}
    assert summary["silences_by_gate"].get("error") == failed_thoughts
    assert summary["simulated_seconds"] == 20 * 60, "the run went on to its end"
    return errors


# --- errors that retries absorb, and those that outlast them --------------------------------------


def test_a_500_then_success_is_retried_with_backoff_and_nothing_is_logged_as_failed(
    ideaco, tmp_path, retry_sleeps
) -> None:
    out, fake, _ = run(ideaco, tmp_path, Faults(ErrorReply(500, "boom"), 2))
    assert len(retry_sleeps) == 2
    # Exponential backoff with up to 1 s of jitter: about 1 s, then about 2 s.
    assert 1.0 <= retry_sleeps[0] <= 2.0 and 2.0 <= retry_sleeps[1] <= 3.0
    thoughts = read_jsonl(out / "thoughts.jsonl")
    assert not [t for t in thoughts if t["gate"] == "error"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errors_by_kind"] == {}
    assert len(fake.requests) == summary["llm"]["calls"] + 2  # the retried requests are not thoughts


@pytest.mark.parametrize(
    ("fault", "kind", "error_text"),
    [
        (ErrorReply(500, "internal error"), "server", "HTTP 500"),
        (ErrorReply(503, "overloaded"), "server", "HTTP 503"),
        (ErrorReply(429, "slow down", headers={"Retry-After": "2"}), "rate_limit", "rate limited"),
    ],
    ids=["500", "503", "429"],
)
def test_errors_that_outlast_the_retries_are_logged_and_the_employee_tries_again(
    ideaco, tmp_path, retry_sleeps, fault, kind, error_text
) -> None:
    out, _, _ = run(ideaco, tmp_path, Faults(fault, 4))
    assert len(retry_sleeps) == 3  # 4 attempts
    (error,) = assert_recovered(out, kind)
    assert error_text in error["error"] and "http://127.0.0.1:" in error["error"]  # what failed, and where
    if kind == "rate_limit":
        assert retry_sleeps == [2.0, 2.0, 2.0], "Retry-After is honoured"


def test_attempts_and_backoff_are_set_from_the_environment(ideaco, tmp_path, retry_sleeps) -> None:
    env = {"IDEACO_RETRIES": "2", "IDEACO_RETRY_DELAY": "0.05"}
    out, _, _ = run(ideaco, tmp_path, Faults(ErrorReply(500, "boom"), 2), env)
    assert len(retry_sleeps) == 1 and 0.05 <= retry_sleeps[0] <= 0.1
    assert_recovered(out, "server")


def test_retry_after_is_honoured_in_real_time(ideaco, tmp_path) -> None:
    faults = Faults(ErrorReply(429, "slow down", headers={"Retry-After": "1"}), 1)
    run(ideaco, tmp_path, faults)
    assert faults.arrivals[1] - faults.arrivals[0] >= 1.0


def test_a_silly_retry_after_is_capped(ideaco, tmp_path, retry_sleeps) -> None:
    run(ideaco, tmp_path, Faults(ErrorReply(429, "come back tomorrow", headers={"Retry-After": "86400"}), 1))
    assert retry_sleeps == [RETRY_AFTER_CAP]


def test_a_very_slow_endpoint_times_out_is_retried_then_logged(ideaco, tmp_path, retry_sleeps) -> None:
    slow = Faults(lambda body: Reply(json.dumps(answer(body)), delay=1.0), 4)
    started = time.monotonic()
    out, _, _ = run(ideaco, tmp_path, slow, {"IDEACO_TIMEOUT": "0.2"})
    assert time.monotonic() - started < 10
    (error,) = assert_recovered(out, "timeout")
    assert "timed out" in error["error"]
    assert len(retry_sleeps) == 3


def test_a_slow_answer_within_the_timeout_is_fine_and_its_latency_recorded(ideaco, tmp_path) -> None:
    slow = Faults(lambda body: Reply(json.dumps(answer(body)), delay=0.3), 1)
    out, _, _ = run(ideaco, tmp_path, slow, {"IDEACO_TIMEOUT": "5"})
    thoughts = read_jsonl(out / "thoughts.jsonl")
    assert not [t for t in thoughts if t["gate"] == "error"]
    alice = next(t for t in thoughts if t["employee"] == "alice")
    assert alice["llm"]["latency_ms"] >= 300


def test_a_bad_request_is_not_retried_and_the_run_goes_on(ideaco, tmp_path, retry_sleeps) -> None:
    served: list[int] = []
    lock = threading.Lock()

    def handler(body: dict) -> Any:
        with lock:
            served.append(1)
            number = len(served)
        if number == 2:  # the first call showed the format works: this 400 is about the request itself
            return ErrorReply(400, "This model's maximum context length is 8192 tokens")
        return answer(body)

    # One call at a time and none early: the second call is a think's own (an early call that fails
    # is asked again as the think's own, and the 400 would never be a thought's error).
    out, _, _ = run(ideaco, tmp_path, handler, {}, "--concurrency", "1", "--speculate", "0")
    assert retry_sleeps == []
    (error,) = assert_recovered(out, "bad_request")
    assert "maximum context length" in error["error"]


def test_bad_settings_are_one_clear_line(ideaco, tmp_path) -> None:
    result = ideaco(
        "run", scenario(tmp_path), "--base-url", "http://127.0.0.1:9/v1", env={"IDEACO_TIMEOUT": "soon"}
    )
    assert result.exit_code == 2
    assert "IDEACO_TIMEOUT" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


# --- an endpoint that refuses structured output -----------------------------------------------------


def refuse(*formats: str) -> Callable[[dict], Any]:
    def handler(body: dict) -> Any:
        kind = (body.get("response_format") or {}).get("type")
        if kind in formats:
            return ErrorReply(400, f"response_format type {kind} is not supported")
        content = json.dumps(answer(body))
        return content if kind else f"Sure! Here is my answer:\n```json\n{content}\n```\nHope it helps."

    return handler


@pytest.mark.parametrize(
    ("refused", "used"), [(("json_schema",), "json_object"), (("json_schema", "json_object"), None)]
)
def test_an_endpoint_that_refuses_json_schema_gets_the_next_format(ideaco, tmp_path, refused, used) -> None:
    out, fake, _ = run(ideaco, tmp_path, refuse(*refused), {}, "--concurrency", "1")
    kinds = [(b.get("response_format") or {}).get("type") for b in fake.requests]
    # Each refused format is tried once; every later request uses the format that worked.
    assert kinds[: len(refused)] == list(refused)
    assert set(kinds[len(refused) :]) == {used}
    thoughts = read_jsonl(out / "thoughts.jsonl")
    assert thoughts and not [t for t in thoughts if t["gate"] == "error"]
    assert all(t["corrections"] == [] for t in thoughts), "parsed without a repair turn"
    messages = read_jsonl(out / "messages.jsonl")
    assert {m["sender"] for m in messages} == {"boss", "alice", "bob"}


# --- connection refused mid-run, then the endpoint comes back ---------------------------------------


class FixedPortServer(FakeOpenAIServer):
    """The fake endpoint on a chosen port, so it can go away and come back at the same URL."""

    def __init__(self, port: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._fixed_port = port

    def start(self) -> FixedPortServer:
        fake = self

        class Handler(_ChatHandler):
            server_fake = fake

        self._httpd = ThreadingHTTPServer(("127.0.0.1", self._fixed_port), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_connection_refused_mid_run_then_the_endpoint_comes_back(tmp_path, retry_sleeps) -> None:
    port = free_port()
    up = FixedPortServer(port, handler=answer).start()
    opened = open_new(
        scenario(tmp_path),
        model=ModelOptions(base_url=f"http://127.0.0.1:{port}/v1"),
        out=tmp_path / "run",
        seed=3,
    )
    up.stop()  # gone after start-up: every call is refused
    office = opened.office
    end = office.end_at
    try:
        office.start()
        await office.run(timedelta(minutes=4))
        with FixedPortServer(port, handler=answer):
            await office.run(until=end)
            opened.finish(0.0)
    finally:
        await opened.stack.aclose()
        opened.close()
    out = tmp_path / "run"
    errors = [t for t in read_jsonl(out / "thoughts.jsonl") if t["gate"] == "error"]
    assert errors and all("cannot reach model endpoint" in t["error"] for t in errors)
    assert all(t["at"] < "2026-01-05T09:04:00" for t in errors), [
        (t["id"], t["employee"], t["at"], t["error"][:300]) for t in errors
    ]
    assert_recovered(out, "connection", failed_thoughts=len(errors))


# --- a think the engine owes survives a failed call -------------------------------------------------

REPORT_SCENARIO = """\
company: Acme Labs
duration: 30m
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
script:
  - {at: "00:00", to: "boss:alice", text: "Alice, draft the API plan and tell me when it is done."}
  - {at: "00:03", to: "boss:alice", text: "Done yet?"}
"""


def reporting_alice(body: dict) -> Any:
    """Creates a task, resolves it when asked; the report the engine then owes fails 4 times first."""
    request = asked(body)
    unread = "\n".join(request.unread)
    said = {"innerThoughts": "work", "topicSaturation": 2, "interestLevel": 8, "reason": "test"}
    if "is done. Result:" in request.prompt:
        return {**said, "shouldSpeak": True, "messages": [{"content": "Report: the API plan is done."}]}
    if "Done yet?" in unread and "[task-1]" in request.prompt:
        ops = [{"op": "resolve", "taskId": "task-1", "result": "plan drafted"}]
        return {**said, "shouldSpeak": False, "taskOps": ops}
    if "draft the API plan" in unread:
        ops = [{"op": "create", "description": "Draft the API plan"}]
        return {**said, "shouldSpeak": True, "messages": [{"content": "On it."}], "taskOps": ops}
    return {**said, "shouldSpeak": False}


def test_a_report_the_engine_owes_is_made_after_its_call_failed(ideaco, tmp_path, retry_sleeps) -> None:
    failures = {"left": 4}

    def handler(body: dict) -> Any:
        if "is done. Result:" in asked(body).prompt and failures["left"] > 0:
            failures["left"] -= 1
            return ErrorReply(502, "bad gateway")
        return reporting_alice(body)

    path = tmp_path / "office.yaml"
    path.write_text(REPORT_SCENARIO)
    out = tmp_path / "run"
    with FakeOpenAIServer(handler=handler) as fake:
        result = ideaco("run", path, "--base-url", fake.base_url, "--out", out)
    assert result.exit_code == 0, result.output
    thoughts = read_jsonl(out / "thoughts.jsonl")
    reports = [t for t in thoughts if t["trigger"] == "on_resolve"]
    assert [t["gate"] for t in reports][:1] == ["error"], "the first try at the report failed"
    assert reports[-1]["spoke"] and reports[-1]["conversation"] == "boss:alice"
    said = [m["text"] for m in read_jsonl(out / "messages.jsonl") if m["sender"] == "alice"]
    assert said == ["On it.", "Report: the API plan is done."]
    assert json.loads((out / "summary.json").read_text())["errors_by_kind"] == {"server": 1}


def test_a_refused_key_stops_the_run_with_one_line_and_keeps_what_was_written(
    ideaco, tmp_path, retry_sleeps
) -> None:
    """A 401 will not get better by retrying every 150 s: the run stops, exit 2, the logs kept."""
    out = tmp_path / "run"
    with FakeOpenAIServer(handler=lambda body: ErrorReply(401, "Incorrect API key provided")) as fake:
        result = ideaco("run", scenario(tmp_path), "--base-url", fake.base_url, "--out", out, "--seed", "3")
    assert result.exit_code == 2, result.output
    assert "ideaco: error:" in result.output and "check the key" in result.output
    assert "Traceback" not in result.output
    assert retry_sleeps == []  # an auth error is not retried
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errors_by_kind"] == {"auth": 1}
    assert summary["messages"] >= 1  # the boss's script line, written before the failure, is kept
    thoughts = read_jsonl(out / "thoughts.jsonl")
    assert [t["gate"] for t in thoughts] == ["error"]
