"""The scenario's `llm:` block: one definition (`ScenarioLLM`), the per-call cap under its own name."""

from __future__ import annotations

from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.llm.config import MAX_TOKENS_RENAMED
from ideaco.office.rules.config import config_for
from ideaco.scenario import load_scenario
from tests.cli.test_run import CLEAN_ENV, SCENARIO, fake  # noqa: F401 - a fixture


def test_the_old_key_still_caps_each_answer_and_the_run_says_it_is_renamed(fake, tmp_path) -> None:  # noqa: F811
    old = tmp_path / "old.yaml"
    old.write_text(SCENARIO + "llm: {max_tokens: 4321}\n")
    new = tmp_path / "new.yaml"
    new.write_text(SCENARIO + "llm: {max_tokens_per_call: 4321}\n")
    assert config_for(load_scenario(old)).max_tokens == config_for(load_scenario(new)).max_tokens == 4321

    said = {}
    for path in (old, new):
        args = [
            "run",
            str(path),
            "--duration",
            "2m",
            "--base-url",
            fake.base_url,
            "--out",
            str(tmp_path / path.stem),
        ]
        result = CliRunner().invoke(app, args, env=CLEAN_ENV)
        assert result.exit_code == 0, result.output
        said[path.stem] = " ".join(result.output.split())
    assert MAX_TOKENS_RENAMED in said["old"] and "deprecated" not in said["new"]
    assert fake.requests and all(r["max_tokens"] >= 4321 for r in fake.requests)
