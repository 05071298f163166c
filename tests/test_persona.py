"""Personas: the shipped archetypes, custom persona files and merging (spec 2.7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from ideaco.persona import (
    ARCHETYPES,
    PERSONAS_DIR,
    Persona,
    PersonaError,
    load_archetype,
    load_persona_file,
    merge,
    read_yaml,
)


def test_the_twelve_archetype_ids_of_the_spec():
    assert ARCHETYPES == (
        "shy-introvert",
        "chatterbox",
        "zen-slacker",
        "ultra-grinder",
        "passive-aggressive",
        "warm-hearted",
        "anxious-perfectionist",
        "rebel-slacker",
        "philosopher",
        "comedy-relief",
        "old-hand",
        "idealist",
    )
    assert sorted(p.stem for p in PERSONAS_DIR.glob("*.yaml")) == sorted(ARCHETYPES)


@pytest.mark.parametrize("archetype", ARCHETYPES)
def test_every_archetype_is_complete(archetype: str):
    p = load_archetype(archetype)
    assert p.id == archetype and p.archetype == archetype
    for text in (p.name, p.description, p.tone, p.quirk, p.speaking_style):
        assert text and text.strip()
    assert 3 <= len(p.example_lines) <= 4
    assert all(0 < len(line) <= 100 for line in p.example_lines)
    # Every tendency is written out in the file, not left to the 0.5 default.
    assert set(p.tendencies.model_fields_set) == {
        "talkativeness",
        "claims_tasks",
        "silence_bias",
        "formality",
    }


def test_tendencies_differ_where_the_spec_says_personality_shapes_decisions():
    zen, grinder, chatter = (load_archetype(a) for a in ("zen-slacker", "ultra-grinder", "chatterbox"))
    assert zen.tendencies.silence_bias > 0.8 > grinder.tendencies.silence_bias
    assert grinder.tendencies.claims_tasks > 0.9 > zen.tendencies.claims_tasks
    assert chatter.tendencies.talkativeness > zen.tendencies.talkativeness


def test_unknown_archetype_names_it():
    with pytest.raises(PersonaError, match="unknown archetype 'ninja'"):
        load_archetype("ninja")


def test_archetype_from_another_directory(tmp_path: Path):
    (tmp_path / "pirate.yaml").write_text("name: Pirate\ntone: gruff\n")
    p = load_archetype("pirate", personas_dir=tmp_path)
    assert (p.id, p.name, p.tone, p.archetype) == ("pirate", "Pirate", "gruff", "pirate")


def test_persona_file_that_is_not_a_mapping_names_the_file(tmp_path: Path):
    f = tmp_path / "bob.yaml"
    f.write_text("- just\n- a list\n")
    with pytest.raises(PersonaError) as err:
        load_persona_file(f)
    assert str(err.value) == f"{f}: not a mapping (it is a list)"


def test_bad_field_in_persona_file_names_file_and_field(tmp_path: Path):
    f = tmp_path / "bob.yaml"
    f.write_text("archetype: old-hand\ntendencies: {talkativeness: 3}\n")
    with pytest.raises(PersonaError) as err:
        load_persona_file(f)
    assert str(err.value).startswith(f"{f}: tendencies.talkativeness: ")
    assert "\n" not in str(err.value)


def test_merge_override_wins_and_tendencies_merge_key_by_key():
    base = load_archetype("old-hand")
    merged = merge(base, {"tone": "cheerful", "tendencies": {"talkativeness": 0.9}, "quirk": None})
    assert merged.tone == "cheerful"
    assert merged.tendencies.talkativeness == 0.9
    assert merged.tendencies.silence_bias == base.tendencies.silence_bias
    assert merged.quirk == base.quirk  # null leaves the base value
    assert merged.example_lines == base.example_lines
    assert base.tone != "cheerful"  # the base is not modified


def test_merge_replaces_lists_whole():
    merged = merge(load_archetype("chatterbox"), {"example_lines": ["hi!"]})
    assert merged.example_lines == ["hi!"]


def test_merge_rejects_unknown_fields():
    with pytest.raises(ValidationError):
        merge(load_archetype("chatterbox"), {"tonne": "x"})


def test_persona_file_on_top_of_its_archetype(tmp_path: Path):
    f = tmp_path / "bob.yaml"
    f.write_text("archetype: old-hand\nquirk: collects vintage keyboards\n")
    p = load_persona_file(f)
    base = load_archetype("old-hand")
    assert (p.id, p.archetype, p.quirk, p.tone) == (
        "bob",
        "old-hand",
        "collects vintage keyboards",
        base.tone,
    )


def test_employee_archetype_is_the_base_of_its_persona_file(tmp_path: Path):
    f = tmp_path / "bob.yaml"
    f.write_text("quirk: hums\n")
    p = load_persona_file(f, archetype="philosopher")
    assert (p.archetype, p.quirk, p.tone) == ("philosopher", "hums", load_archetype("philosopher").tone)


def test_standalone_persona_file(tmp_path: Path):
    f = tmp_path / "mira.yaml"
    f.write_text("id: mira\nname: Night Owl\ntone: sleepy\n")
    assert load_persona_file(f) == Persona(id="mira", name="Night Owl", tone="sleepy")


def test_yaml_keeps_clock_times_and_norway_as_strings(tmp_path: Path):
    f = tmp_path / "x.yaml"
    f.write_text("at: 1:30\nlanguage: no\nflag: true\nn: 7\nx: 0.5\n")
    assert read_yaml(f) == {"at": "1:30", "language": "no", "flag": True, "n": 7, "x": 0.5}


def test_yaml_duplicate_key_is_an_error_with_its_line(tmp_path: Path):
    f = tmp_path / "x.yaml"
    f.write_text("a: 1\nb: 2\na: 3\n")
    with pytest.raises(PersonaError, match=r"not valid YAML \(line 3\): duplicate key 'a'"):
        read_yaml(f)
