"""Skills (issue 20, item 5): skill files, a scenario's own folder, validation, and the fit rule."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ideaco import skills
from ideaco.scenario import ScenarioError, load_scenario


def write_scenario(folder: Path, **extra) -> Path:
    data = {
        "company": "Acme",
        "departments": [{"id": "eng", "name": "Engineering", "members": ["ann", "ben"]}],
        "employees": [
            {
                "id": "ann",
                "name": "Ann",
                "role": "Engineer",
                "archetype": "old-hand",
                "skills": ["code-review"],
            },
            {"id": "ben", "name": "Ben", "role": "Writer", "archetype": "idealist"},
        ],
    }
    for key, value in extra.items():
        data[key] = value
    path = folder / "office.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_the_shipped_skills_each_have_a_one_line_summary() -> None:
    book = skills.library()
    assert {"code-review", "api-design", "technical-writing", "testing", "customer-support"} <= set(book)
    for skill in book.values():
        assert skill.summary and "\n" not in skill.summary and len(skill.summary) <= skills.SUMMARY_CHARS
        assert skill.text.startswith(skill.summary.split(":")[0])


def test_an_unknown_skill_is_refused_with_a_did_you_mean(tmp_path: Path) -> None:
    path = write_scenario(tmp_path)
    assert load_scenario(path).employees[0].skills == ["code-review"]
    data = yaml.safe_load(path.read_text())
    data["employees"][1]["skills"] = ["tehcnical-writing"]
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert err.value.field == "employees[1].skills"
    assert "did you mean 'technical-writing'?" in str(err.value)


def test_a_persona_files_skills_are_checked_too(tmp_path: Path) -> None:
    (tmp_path / "ben.yaml").write_text("archetype: idealist\nskills: [testin]\n", encoding="utf-8")
    path = write_scenario(tmp_path)
    data = yaml.safe_load(path.read_text())
    data["employees"][1]["persona"] = "ben.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError, match="unknown skill 'testin' \\(did you mean 'testing'\\?\\)"):
        load_scenario(path)


def test_a_scenario_brings_its_own_skills_folder(tmp_path: Path) -> None:
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills" / "pricing.md").write_text("# Pricing: set prices from costs and value.\n\nSteps.\n")
    employees = [
        {"id": "ann", "name": "Ann", "role": "Engineer", "archetype": "old-hand", "skills": ["pricing"]},
        {"id": "ben", "name": "Ben", "role": "Writer", "archetype": "idealist"},
    ]
    scenario = load_scenario(write_scenario(tmp_path, skills="skills", employees=employees))
    book = skills.library(tmp_path, scenario.skills)
    assert book["pricing"].summary == "Pricing: set prices from costs and value."
    assert "code-review" in book  # the shipped ones stay


def test_a_skills_folder_outside_the_scenarios_folder_or_a_bad_file_is_refused(tmp_path: Path) -> None:
    inside = tmp_path / "office"
    inside.mkdir()
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(ScenarioError, match="outside the scenario's folder"):
        load_scenario(write_scenario(inside, skills="../elsewhere"))
    (inside / "bad").mkdir()
    (inside / "bad" / "empty.md").write_text("\n\n")
    with pytest.raises(ScenarioError, match="empty.md: empty"):
        load_scenario(write_scenario(inside, skills="bad"))
    (inside / "bad" / "empty.md").write_bytes(b"x" * (skills.MAX_SKILL_BYTES + 1))
    with pytest.raises(ScenarioError, match="larger than"):
        load_scenario(write_scenario(inside, skills="bad"))


@pytest.mark.parametrize(
    ("listed", "piece", "fit"),
    [
        (["code-review"], "Review the payment flow", True),
        (["testing"], "Write tests for the importer", True),
        (["api-design"], "Draft the API for orders", True),
        (["technical-writing"], "Plan the offsite party", False),
        ([], "Review the payment flow", False),
        (["testing"], "", False),
    ],
)
def test_a_piece_fits_a_skill_by_the_words_of_its_name(listed: list[str], piece: str, fit: bool) -> None:
    assert skills.fits(listed, piece) is fit
