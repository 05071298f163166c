"""Cost limits, end to end through `ideaco run` and the fake endpoint (issue 6, item 7).

`--max-calls` / `--max-tokens` end a run cleanly at the limit: exit 0, summary.json written with
the reason, one clear line saying why it stopped, logs intact. `--resume` with a higher limit
continues up to it, counting what the first run spent, and the think the limit cut off is
thought again: nothing lost, nothing counted twice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.faults.conftest import asked, read_jsonl

SCENARIO = """\
company: Acme Labs
duration: 2h
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
rooms:
  - {id: api-design, name: API design, kind: work, members: [alice, bob]}
script:
  - {at: "00:00", to: api-design, text: "Should the new API be REST or GraphQL?"}
  - {at: "00:30", to: api-design, text: "Decide before lunch, please."}
  - {at: "01:00", to: api-design, text: "Where are we?"}
"""
PROMPT_TOKENS, COMPLETION_TOKENS = 100, 20
PER_CALL = PROMPT_TOKENS + COMPLETION_TOKENS


def chatty(body: dict) -> Reply:
    """Everyone answers whatever is new; every call costs exactly PER_CALL tokens."""
    request = asked(body)
    unread = request.unread
    thought = {
        "innerThoughts": f"{len(unread)} new",
        "topicSaturation": 2,
        "interestLevel": 8,
        "shouldSpeak": bool(unread),
        "reason": "test",
        "messages": [{"content": f"{request.name} on {len(request.prompt)} chars"}] if unread else [],
    }
    return Reply(json.dumps(thought), prompt_tokens=PROMPT_TOKENS, completion_tokens=COMPLETION_TOKENS)


class Endpoint:
    """The fake endpoint for a run and its resumes; `broken` request numbers get prose (a repair follows)."""

    def __init__(self, broken: tuple[int, ...] = ()) -> None:
        self.broken = broken
        self.fake = FakeOpenAIServer(handler=self)

    def __call__(self, body: dict) -> Any:
        # Its place in arrival order (concurrent requests may all be counted already).
        number = next(i for i, seen in enumerate(self.fake.requests, start=1) if seen is body)
        if number in self.broken:
            return Reply(
                "Let me think... REST, probably.",
                prompt_tokens=PROMPT_TOKENS,
                completion_tokens=COMPLETION_TOKENS,
            )
        return chatty(body)

    def __enter__(self) -> Endpoint:
        self.fake.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.fake.stop()

    @property
    def requests(self) -> int:
        return len(self.fake.requests)


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "office.yaml"
    path.write_text(SCENARIO)
    return path


def summary_of(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


def assert_intact(out: Path) -> None:
    """Logs parse, ids are unique, and summary.json agrees with them."""
    messages, thoughts = read_jsonl(out / "messages.jsonl"), read_jsonl(out / "thoughts.jsonl")
    assert len({m["id"] for m in messages}) == len(messages)
    assert len({t["id"] for t in thoughts}) == len(thoughts)
    summary = summary_of(out)
    assert summary["messages"] == len(messages) and summary["thoughts"] == len(thoughts)
    assert summary["llm"]["calls"] == sum((t["llm"] or {}).get("calls", 0) for t in thoughts)
    assert (out / "state.json").exists()


def test_max_calls_ends_the_run_cleanly_at_the_limit(ideaco, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    with Endpoint() as endpoint:
        result = ideaco(
            "run", scenario, "--base-url", endpoint.fake.base_url, "--out", out, "--max-calls", "5"
        )
    assert result.exit_code == 0, result.output
    assert endpoint.requests == 5
    assert f"stopped: --max-calls 5 reached. Logs in {out}" in " ".join(result.output.split())
    summary = summary_of(out)
    assert summary["stop_reason"] == "--max-calls 5 reached"
    assert summary["llm"]["calls"] == 5 and summary["silences_by_gate"]["budget"] == 1
    assert summary["simulated_seconds"] < 2 * 3600
    assert_intact(out)


def test_resume_with_a_higher_limit_continues_to_it_and_thinks_the_cut_think_again(
    ideaco, scenario, tmp_path
) -> None:
    out = tmp_path / "run"
    with Endpoint() as endpoint:
        url = endpoint.fake.base_url
        assert ideaco("run", scenario, "--base-url", url, "--out", out, "--max-calls", "5").exit_code == 0
        before = (out / "messages.jsonl").read_text()
        (cut,) = [t for t in read_jsonl(out / "thoughts.jsonl") if t["gate"] == "budget"]

        result = ideaco("run", "--resume", out, "--base-url", url, "--max-calls", "10")
        assert result.exit_code == 0, result.output
        assert endpoint.requests == 10, "the first run's calls count against the raised limit"
        assert "stopped: --max-calls 10 reached" in result.output

        # The same limit again: nothing more is spent, and the run still ends cleanly.
        result = ideaco("run", "--resume", out, "--base-url", url, "--max-calls", "10")
        assert result.exit_code == 0, result.output
        assert endpoint.requests == 10
    assert (out / "messages.jsonl").read_text().startswith(before)
    assert summary_of(out)["llm"]["calls"] == 10
    assert_intact(out)
    # The think the limit cut off happens after the resume, for the same reason, in the same place.
    again = next(
        t
        for t in read_jsonl(out / "thoughts.jsonl")
        if t["employee"] == cut["employee"] and t["at"] > cut["at"] and t["llm"]
    )
    assert (again["conversation"], again["trigger"]) == (cut["conversation"], cut["trigger"])


def test_a_repair_turn_refused_by_the_limit_still_counts_its_first_call(ideaco, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    with Endpoint(broken=(5,)) as endpoint:
        url = endpoint.fake.base_url
        assert ideaco("run", scenario, "--base-url", url, "--out", out, "--max-calls", "5").exit_code == 0
        assert endpoint.requests == 5
        (cut,) = [t for t in read_jsonl(out / "thoughts.jsonl") if t["gate"] == "budget"]
        assert cut["llm"]["calls"] == 1, "the answer that needed a repair was paid for"
        assert summary_of(out)["llm"]["calls"] == 5

        assert ideaco("run", "--resume", out, "--base-url", url, "--max-calls", "10").exit_code == 0
        assert endpoint.requests == 10
    assert summary_of(out)["llm"]["calls"] == 10
    assert_intact(out)


def test_max_tokens_ends_the_run_and_resume_raises_it(ideaco, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    with Endpoint() as endpoint:
        url = endpoint.fake.base_url
        result = ideaco("run", scenario, "--base-url", url, "--out", out, "--max-tokens", "500")
        assert result.exit_code == 0, result.output
        first = endpoint.requests
        # Tokens are known only after a call: the calls already in flight (concurrency 2) may pass it.
        assert 500 <= first * PER_CALL < 500 + 2 * PER_CALL
        assert "stopped: --max-tokens 500 reached" in result.output
        summary = summary_of(out)
        assert summary["stop_reason"].startswith("--max-tokens 500 reached")
        assert summary["llm"]["prompt_tokens"] + summary["llm"]["completion_tokens"] == first * PER_CALL

        result = ideaco("run", "--resume", out, "--base-url", url, "--max-tokens", "1000")
        assert result.exit_code == 0, result.output
        assert 1000 <= endpoint.requests * PER_CALL < 1000 + 2 * PER_CALL
    assert summary_of(out)["stop_reason"].startswith("--max-tokens 1000 reached")
    assert_intact(out)


# --- an owed report cut off by the limit is made after the resume --------------------------------

REPORT_SCENARIO = """\
company: Acme Labs
duration: 1h
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
script:
  - {at: "00:00", to: "boss:alice", text: "Alice, draft the API plan and tell me when it is done."}
  - {at: "00:03", to: "boss:alice", text: "Done yet?"}
"""


def reporting_alice(body: dict) -> dict[str, Any]:
    """Creates a task, resolves it when asked, and reports when the engine asks for the report."""
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


def test_a_report_cut_off_by_the_limit_is_made_after_the_resume(ideaco, tmp_path) -> None:
    path = tmp_path / "office.yaml"
    path.write_text(REPORT_SCENARIO)
    with FakeOpenAIServer(handler=reporting_alice) as fake:
        # A first run without a limit shows which call is the report.
        assert ideaco("run", path, "--base-url", fake.base_url, "--out", tmp_path / "dry").exit_code == 0
        report = next(i for i, b in enumerate(fake.requests) if "is done. Result:" in asked(b).prompt)

        out = tmp_path / "run"
        args = ["--base-url", fake.base_url]
        assert ideaco("run", path, *args, "--out", out, "--max-calls", str(report)).exit_code == 0
        (cut,) = [t for t in read_jsonl(out / "thoughts.jsonl") if t["gate"] == "budget"]
        assert cut["trigger"] == "on_resolve"
        assert ideaco("run", "--resume", out, *args).exit_code == 0
    said = [m["text"] for m in read_jsonl(out / "messages.jsonl") if m["sender"] == "alice"]
    assert said == ["On it.", "Report: the API plan is done."]
    assert_intact(out)
