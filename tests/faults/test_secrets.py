"""The API key never leaves the process (issue 6, item 6).

A run with `--api-key-env` against an endpoint that echoes the Authorization header back, in
error bodies of every kind and in answers: the key must appear nowhere in the run directory,
the recording, the CLI's output, the logs, or an error's traceback.
"""

from __future__ import annotations

import json
import logging
import threading
import traceback
from pathlib import Path
from typing import Any

import pytest

from ideaco.llm import ChatRequest, LLMError, build_llm, resolve_settings
from ideaco.redact import basic_credentials, redact_headers, url_secrets
from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer, _ChatHandler
from tests.faults.conftest import asked

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
  - {at: "00:00", to: api-design, text: "Should the new API be REST or GraphQL?"}
  - {at: "00:00", to: "boss:alice", text: "Alice, a word?"}
  - {at: "00:00", to: "boss:bob", text: "Bob, a word?"}
"""
KEYS = ["sk-test-SECRET123", "tok_SECRET_4f9a8b7c6d"]  # OpenAI-style, and a key of no known shape


class EchoingServer(FakeOpenAIServer):
    """The fake endpoint, plus: each handler call can read the request's Authorization header."""

    def start(self) -> EchoingServer:
        fake = self
        fake.local = threading.local()
        fake.seen_auth: set[str] = set()

        class Handler(_ChatHandler):
            server_fake = fake

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                fake.local.auth = self.headers.get("Authorization", "")
                fake.seen_auth.add(fake.local.auth)
                super().do_POST()

        super().start()
        self._httpd.RequestHandlerClass = Handler  # type: ignore[union-attr]
        return self


def echo_everything(fake: EchoingServer) -> Any:
    """Per request, another way to send the header back: error bodies of each kind, then answers."""
    counter = {"n": 0}
    lock = threading.Lock()

    def handler(body: dict) -> Any:
        auth = fake.local.auth  # "Bearer <key>"
        key = auth.removeprefix("Bearer ")
        with lock:
            counter["n"] += 1
            n = counter["n"]
        request = asked(body)
        faults = [
            ErrorReply(500, f"upstream failed for Authorization: {auth}"),
            ErrorReply(429, f"rate limit for key {key}", headers={"Retry-After": "0"}),
            ErrorReply(503, body={"error": {"message": f"no capacity ({key[:6]}...{key[-4:]})", "key": key}}),
            ErrorReply(502, f"bad gateway; your headers: {auth}"),
            ErrorReply(502, body=f"<html>bad gateway; your headers: {auth}</html>"),
            ErrorReply(400, f"Incorrect API key format: {key}"),
            ErrorReply(400, f"invalid request from api_key={key}"),
        ]
        if n <= len(faults):
            return faults[n - 1]
        unread = bool(request.unread)
        return {
            "innerThoughts": f"the header said {auth}",
            "topicSaturation": 3,
            "interestLevel": 7,
            "shouldSpeak": unread,
            "reason": f"because {key}",
            "messages": [{"content": f"My key is {key}"}] if unread else [],
            "memoryOps": [
                {"op": "add", "type": "long_term", "content": f"remember {key}", "category": "fact"}
            ],
        }

    return handler


def files_under(path: Path) -> list[Path]:
    return [p for p in path.rglob("*") if p.is_file()]


@pytest.mark.parametrize("key", KEYS)
def test_the_key_appears_in_no_file_no_output_and_no_log(ideaco, tmp_path, retry_sleeps, caplog, key) -> None:
    scenario = tmp_path / "office.yaml"
    scenario.write_text(SCENARIO)
    out, record = tmp_path / "run", tmp_path / "calls.jsonl"
    caplog.set_level(logging.DEBUG)
    with EchoingServer() as fake:
        fake.handler = echo_everything(fake)
        result = ideaco(
            "run",
            scenario,
            "--base-url",
            fake.base_url,
            "--api-key-env",
            "ACME_LLM_KEY",
            "--out",
            out,
            "--record",
            record,
            "--show-thoughts",
            "--concurrency",  # one call at a time: the first takes the first four errors and fails
            "1",
            env={"ACME_LLM_KEY": key},
        )
    assert result.exit_code == 0, result.output
    assert fake.seen_auth == {f"Bearer {key}"}, "the key was sent, and only as the Authorization header"

    thoughts = [json.loads(line) for line in (out / "thoughts.jsonl").read_text().splitlines()]
    errors = [t["error"] for t in thoughts if t["gate"] == "error"]
    assert any("***" in e for e in errors), errors  # the echo arrived, and was blanked
    assert record.exists() and any(t["spoke"] for t in thoughts)

    secret = key.removeprefix("sk-")
    places = {str(p): p.read_text(errors="replace") for p in [*files_under(out), record]}
    places["CLI output"] = result.output
    places["logs"] = caplog.text
    leaks = [where for where, text in places.items() if secret in text]
    assert leaks == [], f"the key leaked into {leaks}"


async def test_an_error_and_its_whole_traceback_hold_no_key(tmp_path) -> None:
    key = KEYS[0]
    settings = resolve_settings(cli_base_url="http://placeholder/v1", env={"OPENAI_API_KEY": key})
    with EchoingServer() as fake:
        fake.handler = lambda body: ErrorReply(500, f"bad auth header: {fake.local.auth}")
        settings = type(settings)(**{**settings.__dict__, "base_url": fake.base_url})
        stack = build_llm(settings, retry_attempts=1)
        try:
            with pytest.raises(LLMError) as caught:
                await stack.llm.complete(
                    ChatRequest(messages=({"role": "user", "content": "hi"},), model="m")
                )
        finally:
            await stack.aclose()
    printed = "".join(traceback.format_exception(caught.value))  # what a crash or log.exception shows
    assert "***" in str(caught.value)
    assert "SECRET123" not in printed and "SECRET123" not in repr(caught.value)


@pytest.mark.parametrize("key", KEYS)
def test_a_refused_key_is_not_echoed_when_the_run_stops_for_it(ideaco, tmp_path, key) -> None:
    """A 401 stops the run (exit 2); the endpoint's echo of the key is blanked everywhere."""
    scenario = tmp_path / "office.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    with EchoingServer() as fake:
        fake.handler = lambda body: ErrorReply(401, f"Incorrect API key provided: {key}")
        result = ideaco(
            "run",
            scenario,
            "--base-url",
            fake.base_url,
            "--api-key-env",
            "ACME_LLM_KEY",
            "--out",
            out,
            env={"ACME_LLM_KEY": key},
        )
    assert result.exit_code == 2, result.output
    assert "refused the API key" in result.output
    secret = key.removeprefix("sk-")
    for where, text in {
        **{str(p): p.read_text(errors="replace") for p in files_under(out)},
        "output": result.output,
    }.items():
        assert secret not in text, where


URL_USER, URL_PASSWORD = "acme-user", "hunter2-SECRETPW"
BASIC = basic_credentials(URL_USER, URL_PASSWORD)  # what the client sends for them
STRANGER = "tok-someone-elses-9f8e7d"  # a credential the server holds, not ours


def echo_the_headers(fake: EchoingServer) -> Any:
    """Error bodies that quote the request's headers, then answers that do."""
    counter = {"n": 0}
    lock = threading.Lock()

    def handler(body: dict) -> Any:
        auth = fake.local.auth  # "Basic <base64(user:password)>"
        with lock:
            counter["n"] += 1
            n = counter["n"]
        faults = [
            ErrorReply(500, f"upstream failed; request headers: {{'Authorization': '{auth}'}}"),
            ErrorReply(502, body={"error": {"message": f"proxy said x-api-key: {STRANGER}"}}),
            ErrorReply(503, f"retry later (Proxy-Authorization: Bearer {STRANGER})"),
        ]
        if n <= len(faults):
            return faults[n - 1]
        unread = bool(asked(body).unread)
        return {
            "innerThoughts": f"the header said {auth}",
            "topicSaturation": 3,
            "interestLevel": 7,
            "shouldSpeak": unread,
            "reason": "the boss asked",
            "messages": [{"content": f"I got {auth.removeprefix('Basic ')}"}] if unread else [],
        }

    return handler


def test_url_credentials_in_their_basic_form_and_echoed_headers_are_blanked(
    ideaco, tmp_path, retry_sleeps, caplog
) -> None:
    """`--base-url http://user:pw@host` goes out as `Authorization: Basic base64(user:pw)`: an
    endpoint that echoes it, or any credential header, in an error or an answer leaks nothing."""
    scenario = tmp_path / "office.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    caplog.set_level(logging.DEBUG)
    with EchoingServer() as fake:
        fake.handler = echo_the_headers(fake)
        url = fake.base_url.replace("http://", f"http://{URL_USER}:{URL_PASSWORD}@")
        result = ideaco(
            "run",
            scenario,
            "--base-url",
            url,
            "--out",
            out,
            "--concurrency",
            "1",
            # No call made early: under load an early call could take one of the three faults and be
            # dropped, its error never a thought's (issue 37, item 9: 2 == 3 at load ~2.5).
            "--speculate",
            "0",
            env={"IDEACO_RETRIES": "1"},
        )
    assert result.exit_code == 0, result.output
    assert fake.seen_auth == {f"Basic {BASIC}"}, "the URL's credentials went out as HTTP Basic"

    thoughts = [json.loads(line) for line in (out / "thoughts.jsonl").read_text().splitlines()]
    errors = [t["error"] for t in thoughts if t["gate"] == "error"]
    assert len(errors) == 3 and all("***" in e for e in errors), errors  # each echo arrived, blanked
    places = {str(p): p.read_text(errors="replace") for p in files_under(out)}
    places["CLI output"] = result.output
    places["logs"] = caplog.text
    for secret in (BASIC, URL_PASSWORD, STRANGER):
        leaks = [where for where, text in places.items() if secret in text]
        assert leaks == [], f"{secret} leaked into {leaks}"


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("Authorization: Basic dXNlcjpwdw==", "Authorization: Basic ***"),
        ('{"authorization": "Bearer abc.def-123"}', '{"authorization": "Bearer ***"}'),
        ("api_key=k3y-value-1 was refused", "api_key=*** was refused"),
        ("'X-Api-Key': 'zz-top-42'", "'X-Api-Key': '***'"),
        ("they sent Bearer eyJhbGciOi.J9.x", "they sent Bearer ***"),
        ("Basic authentication required", "Basic authentication required"),
        ("authorization failed: try again", "authorization failed: try again"),
    ],
)
def test_redact_headers_blanks_credential_values_and_keeps_prose(said, shown) -> None:
    assert redact_headers(said) == shown


def test_url_secrets_include_the_basic_form_as_written_and_decoded() -> None:
    secrets = url_secrets("http://user:p%40ssword@host/v1")
    assert basic_credentials("user", "p@ssword") in secrets
    assert basic_credentials("user", "p%40ssword") in secrets
