"""resolve_settings: each source beats the next (spec 1.2), and the key never shows."""

from __future__ import annotations

import pytest

from ideaco.llm import model_for, resolve_settings
from ideaco.llm.config import DEFAULT_MODELS, MAX_TOKENS_RENAMED, Models, ScenarioLLM

ALL_ENV = {
    "IDEACO_BASE_URL": "http://ideaco-env/v1",
    "OPENAI_BASE_URL": "http://openai-env/v1",
    "OPENAI_API_KEY": "sk-openai-env-key",
    "IDEACO_MODEL": "env-model",
    "OTHER_KEY": "sk-other-key",
    "SCENARIO_KEY": "sk-scenario-key",
}
SCENARIO = {"base_url": "http://scenario/v1", "model": "scenario-model"}


@pytest.mark.parametrize(
    ("cli", "scenario", "env_names", "expected"),
    [
        ("http://cli/v1", SCENARIO, ALL_ENV, "http://cli/v1"),
        (None, SCENARIO, ALL_ENV, "http://scenario/v1"),
        (None, {}, ALL_ENV, "http://ideaco-env/v1"),
        (None, {}, {"OPENAI_BASE_URL": "http://openai-env/v1"}, "http://openai-env/v1"),
        (None, {}, {}, None),
    ],
)
def test_base_url_precedence(cli, scenario, env_names, expected):
    settings = resolve_settings(cli_base_url=cli, scenario_llm=scenario, env=env_names)
    assert settings.base_url == expected
    assert settings.embedded is (expected is None)


@pytest.mark.parametrize(
    ("cli", "scenario", "env", "expected"),
    [
        ("cli-model", SCENARIO, ALL_ENV, "cli-model"),
        (None, SCENARIO, ALL_ENV, "scenario-model"),
        (None, {}, ALL_ENV, "env-model"),
        (None, {}, {"OPENAI_BASE_URL": "http://x/v1"}, "gpt-4o-mini"),
        (None, {}, {}, "smollm2-135m"),
    ],
)
def test_model_precedence_and_defaults(cli, scenario, env, expected):
    assert resolve_settings(cli_model=cli, scenario_llm=scenario, env=env).model == expected


@pytest.mark.parametrize(
    ("cli_url", "cli_key_env", "scenario", "trust", "expected", "withheld"),
    [
        ("http://cli/v1", "OTHER_KEY", SCENARIO, False, "sk-other-key", None),
        ("http://cli/v1", None, SCENARIO, False, "sk-openai-env-key", None),
        (None, None, {}, False, "sk-openai-env-key", None),  # the user's own IDEACO_BASE_URL
        # The scenario chose the host: the user's key goes there only with consent.
        (None, "OTHER_KEY", SCENARIO, False, None, "OTHER_KEY"),
        (None, None, SCENARIO, False, None, "OPENAI_API_KEY"),
        (None, "OTHER_KEY", SCENARIO, True, "sk-other-key", None),
        (None, None, {"base_url": "http://ideaco-env:80/v1"}, False, "sk-openai-env-key", None),  # same host
        (None, None, {"base_url": "https://ideaco-env/v1"}, False, None, "OPENAI_API_KEY"),  # not same scheme
    ],
)
def test_api_key_goes_where_the_user_sent_it(cli_url, cli_key_env, scenario, trust, expected, withheld):
    settings = resolve_settings(
        cli_base_url=cli_url,
        cli_api_key_env=cli_key_env,
        scenario_llm=scenario,
        env=ALL_ENV,
        trust_scenario_endpoint=trust,
    )
    assert settings.api_key == expected
    assert settings.key_withheld == withheld
    assert (withheld or "") in settings.withheld_note()


def test_a_scenario_cannot_name_the_key_variable():
    with pytest.raises(ValueError, match="llm.api_key_env: a scenario cannot choose"):
        resolve_settings(
            scenario_llm={"api_key_env": "SCENARIO_KEY"}, cli_base_url="http://x/v1", env=ALL_ENV
        )


def test_missing_key_is_fine_for_a_local_endpoint():
    settings = resolve_settings(cli_base_url="http://localhost:11434/v1", env={})
    assert settings.api_key is None and not settings.embedded


def test_a_named_key_variable_that_is_unset_is_an_error():
    with pytest.raises(ValueError, match="--api-key-env: environment variable NOPE is not set"):
        resolve_settings(cli_api_key_env="NOPE", cli_base_url="http://x/v1", env={})


def test_the_per_call_cap_has_its_own_name_and_the_old_one_still_reads():
    new = ScenarioLLM.model_validate({"max_tokens_per_call": 300})
    assert new.max_tokens_per_call == 300 and new.notes == ()
    old = ScenarioLLM.model_validate({"max_tokens": 300})
    assert old.max_tokens_per_call == 300 and old.notes == (MAX_TOKENS_RENAMED,)
    assert resolve_settings(scenario_llm={"max_tokens": 300}, env={}).notes == (MAX_TOKENS_RENAMED,)
    assert resolve_settings(scenario_llm=new, env={}).notes == ()
    with pytest.raises(ValueError, match="max_tokens_per_call only"):
        resolve_settings(scenario_llm={"max_tokens": 300, "max_tokens_per_call": 200}, env={})


@pytest.mark.parametrize(
    ("block", "field"),
    [
        ({"temperature": "hot"}, "llm.temperature"),
        ({"temperature": 5}, "llm.temperature"),
        ({"temperature": True}, "llm.temperature"),
        ({"max_tokens": 0}, "llm.max_tokens"),
        ({"max_tokens_per_call": 1.5}, "llm.max_tokens_per_call"),
        ({"model": ""}, "llm.model"),
        ({"base_url": []}, "llm.base_url"),
        ({"modle": "x"}, r"llm.modle: unknown key \(allowed: api_key_env, base_url"),
    ],
)
def test_bad_scenario_llm_block_names_the_field(block, field):
    with pytest.raises(ValueError, match=field):
        resolve_settings(scenario_llm=block, env={})


def test_gguf_forces_the_embedded_server_over_env_and_scenario(tmp_path):
    model = tmp_path / "tiny-model.Q4.gguf"
    model.write_bytes(b"GGUF")
    settings = resolve_settings(
        gguf=model, scenario_llm={"base_url": "http://s/v1"}, env=ALL_ENV | {"IDEACO_MODEL": ""}
    )
    assert settings.embedded and settings.base_url is None
    assert settings.gguf == str(model) and settings.model == "tiny-model.Q4"


def test_gguf_with_base_url_is_an_error(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    with pytest.raises(ValueError, match="--gguf and --base-url"):
        resolve_settings(gguf=model, cli_base_url="http://x/v1", env={})


def test_missing_gguf_file_names_the_path(tmp_path):
    with pytest.raises(ValueError, match="nope.gguf"):
        resolve_settings(gguf=tmp_path / "nope.gguf", env={})


def test_api_key_never_in_repr_or_describe():
    settings = resolve_settings(cli_base_url="http://x/v1", env={"OPENAI_API_KEY": "sk-topsecret-42"})
    assert settings.api_key == "sk-topsecret-42"
    assert "topsecret" not in repr(settings) and "topsecret" not in str(settings)
    assert "topsecret" not in settings.describe()


def test_model_for_cli_beats_employee_beats_run():
    settings = resolve_settings(cli_base_url="http://x/v1", cli_model=None, env={"IDEACO_MODEL": "run-model"})
    assert model_for(settings, "emp-model", "cli-model") == "cli-model"
    assert model_for(settings, "emp-model", None) == "emp-model"
    assert model_for(settings, None, None) == "run-model"


def test_the_office_is_handed_which_model_each_employee_uses_as_a_value() -> None:
    models = Models("run-model", forced=None)
    assert (models.of("emp-model"), models.of(None)) == ("emp-model", "run-model")
    assert Models("run-model", forced="cli-model").of("emp-model") == "cli-model"
    assert DEFAULT_MODELS.of(None) == "default"  # an office built with no run settings
