"""The `filters` setting (issue 36, item 1): strict for the embedded model, standard for an endpoint,
a scenario's `posting.filters`, the `--filters` flag over both; said in the opening line, kept in
state.json and summary.json."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.errors import IdeacoError
from ideaco.model_options import ModelOptions, resolve_model_settings
from ideaco.scenario import Scenario, scenario_problems
from ideaco.session import _config
from tests.guard.runs import RUNS

EMBEDDED = SimpleNamespace(embedded=True, gguf=None)
ENDPOINT = SimpleNamespace(embedded=False, gguf=None)


def scenario(posting: dict | None = None) -> Scenario:
    return Scenario.model_validate({"company": "Acme"} | ({"posting": posting} if posting else {}))


@pytest.mark.parametrize(
    ("settings", "posting", "flag", "chosen"),
    [
        (EMBEDDED, None, None, "strict"),
        (ENDPOINT, None, None, "standard"),
        (ENDPOINT, {"filters": "strict"}, None, "strict"),
        (EMBEDDED, {"filters": "standard"}, None, "standard"),
        (EMBEDDED, {"filters": "standard"}, "strict", "strict"),  # the flag wins
        (ENDPOINT, None, "strict", "strict"),
    ],
)
def test_who_chooses_the_filters(
    settings: object, posting: dict | None, flag: str | None, chosen: str
) -> None:
    meta: dict = {}
    config = _config(scenario(posting), settings, meta, filters=flag)  # type: ignore[arg-type]
    assert config.filters == chosen
    assert meta["filters"] == chosen  # kept in the state: a resume goes on with it
    assert _config(scenario(), ENDPOINT, meta).filters == chosen  # type: ignore[arg-type]


def test_a_bad_value_is_one_line() -> None:
    with pytest.raises(ValueError) as bad:
        scenario({"filters": "loose"})
    assert scenario_problems(bad.value) == [("posting.filters", "'loose': expected strict or standard")]
    with pytest.raises(IdeacoError, match="--filters 'loose': expected strict or standard"):
        resolve_model_settings(ModelOptions(filters="loose"), scenario())


@pytest.mark.parametrize("filters", ["standard", "strict"])
def test_the_opening_line_and_summary_say_which(filters: str, tmp_path: Path) -> None:
    run = next(r for r in RUNS if r.flags)  # the scripted office, on an endpoint
    flags = [f for f in run.args(tmp_path / "run") if f not in ("--filters", "strict")]
    flags[flags.index("--duration") + 1] = "10m"
    env = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "IDEACO_MODEL": None}
    result = CliRunner().invoke(
        app, [*flags, *(["--filters", "strict"] if filters == "strict" else [])], env=env
    )
    assert result.exit_code == 0, result.output
    assert f"· filters {filters} ·" in result.output.splitlines()[0]
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["filters"] == filters


def test_a_filtered_draft_records_its_rule_and_kind_and_summary_counts_them(tmp_path: Path) -> None:
    """The startup guard on the embedded model (strict): its first 17 minutes hold drafts refused by
    hygiene (the answer format's words) and by a guarantee (the engine's words)."""
    run = next(r for r in RUNS if r.name == "startup-s1")
    flags = run.args(tmp_path / "run")
    flags[flags.index("--duration") + 1] = "17m"
    env = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "IDEACO_MODEL": None}
    result = CliRunner().invoke(app, flags, env=env)
    assert result.exit_code == 0, result.output
    thoughts = (tmp_path / "run" / "thoughts.jsonl").read_text(encoding="utf-8").splitlines()
    filtered = [
        (step["rule"], step["kind"])
        for line in thoughts
        for step in json.loads(line)["applied"]["steps"]
        if step.get("gate") == "filtered"
    ]
    assert ("prompt_echo", "hygiene") in filtered and ("prompt_echo", "guarantee") in filtered
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["filters"] == "strict"
    assert summary["drafts_filtered_by_kind"] == {
        kind: sum(1 for _, k in filtered if k == kind) for kind in ("guarantee", "hygiene")
    }
