"""`ideaco run` with several `--base-url`s: calls are balanced, an endpoint failing for a while is
rested and comes back, and summary.json counts the calls each endpoint answered."""

from __future__ import annotations

import json
import threading

from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.cli.test_run import CLEAN_ENV, answer, read_jsonl, scenario  # noqa: F401 - a fixture
from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer, Reply

FAILS_FIRST = 3


class FailsForAWhile:
    """Answers 503 to its first FAILS_FIRST requests, then like a healthy model."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen = 0

    def __call__(self, body: dict):
        with self.lock:
            self.seen += 1
            failing = self.seen <= FAILS_FIRST
        return ErrorReply(503, "warming up") if failing else answer(body)


def test_two_endpoints_one_failing_for_a_while(scenario, tmp_path) -> None:  # noqa: F811
    # b is a little slow, so the run lasts long enough for a's rests (0.02 s, doubling) to end.
    with (
        FakeOpenAIServer(handler=FailsForAWhile()) as a,
        FakeOpenAIServer(handler=lambda body: Reply(json.dumps(answer(body)), delay=0.1)) as b,
    ):
        out = tmp_path / "run"
        env = {**CLEAN_ENV, "IDEACO_ENDPOINT_REST": "0.02", "IDEACO_RETRY_DELAY": "0.01"}
        args = [
            "run",
            str(scenario),
            "--duration",
            "30m",
            "--out",
            str(out),
            "--seed",
            "4",
            "--base-url",
            a.base_url,
            "--base-url",
            b.base_url,
        ]
        result = CliRunner().invoke(app, args, env=env)
        assert result.exit_code == 0, result.output
        assert f"via {a.base_url}, {b.base_url}" in " ".join(result.output.split())
        summary = json.loads((out / "summary.json").read_text())
        counts = summary["endpoints"]
        assert set(counts) == {a.base_url, b.base_url}
        assert counts[a.base_url]["failures"] == FAILS_FIRST
        assert counts[a.base_url]["calls"] > 0, "the failing endpoint was retried after its rest and answered"
        assert counts[b.base_url]["calls"] > 0 and counts[b.base_url]["failures"] == 0
        assert counts[a.base_url]["calls"] + counts[b.base_url]["calls"] == summary["llm"]["calls"]
        assert a.request_count == counts[a.base_url]["calls"] + FAILS_FIRST
        # No thought was lost to the failures: each failed call went on to the other endpoint.
        assert all(t["gate"] != "error" for t in read_jsonl(out / "thoughts.jsonl"))


def test_one_unreachable_endpoint_of_two_is_named_and_the_run_goes_on(scenario, tmp_path) -> None:  # noqa: F811
    with FakeOpenAIServer(handler=answer) as b:
        dead = "http://127.0.0.1:9/v1"
        out = tmp_path / "run"
        env = {**CLEAN_ENV, "IDEACO_ENDPOINT_REST": "60"}
        args = [
            "run",
            str(scenario),
            "--duration",
            "5m",
            "--out",
            str(out),
            "--base-url",
            dead,
            "--base-url",
            b.base_url,
        ]
        result = CliRunner().invoke(app, args, env=env)
        assert result.exit_code == 0, result.output
        assert f"cannot reach the model endpoint {dead}" in result.output
        counts = json.loads((out / "summary.json").read_text())["endpoints"]
        assert counts[dead] == {"calls": 0, "failures": 1} and counts[b.base_url]["calls"] > 0


def test_a_list_of_endpoints_in_the_scenario(scenario, tmp_path) -> None:  # noqa: F811
    with FakeOpenAIServer(handler=answer) as a, FakeOpenAIServer(handler=answer) as b:
        path = tmp_path / "two.yaml"
        path.write_text(scenario.read_text() + f"llm:\n  base_url: [{a.base_url}, {b.base_url}]\n")
        out = tmp_path / "run"
        result = CliRunner().invoke(
            app, ["run", str(path), "--duration", "10m", "--out", str(out)], env=CLEAN_ENV
        )
        assert result.exit_code == 0, result.output
        counts = json.loads((out / "summary.json").read_text())["endpoints"]
        assert counts[a.base_url]["calls"] > 0 and counts[b.base_url]["calls"] > 0
