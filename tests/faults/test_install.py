"""Installable like a normal package (issue 11, item 7).

The wheel `pip install .` builds, installed (not editable) where nothing of the repository is
importable, run from another directory: the personas, the prompt templates and the shipped
scenarios travel as package data, so `ideaco run startup` and a path to a scenario of one's own
both work end to end. (CI does the same in a fresh virtual environment: .ci/run.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.processes import clean_env

ROOT = Path(__file__).resolve().parents[2]
REPLY = {
    "innerThoughts": "ok",
    "topicSaturation": 3,
    "interestLevel": 6,
    "shouldSpeak": True,
    "reason": "asked",
    "messages": [{"content": "On it."}],
}
OWN_SCENARIO = """\
company: Elsewhere Inc
duration: 10m
employees:
  - {id: ana, name: Ana, role: Designer, persona: people/ana.yaml}
  - {id: ben, name: Ben, role: Engineer, archetype: zen-slacker}
rooms:
  - {id: studio, name: Studio, members: [ana, ben]}
script:
  - {at: "00:00", to: studio, text: "@Ana a logo by noon?"}
"""
ANA = "archetype: warm-hearted\ndescription: Draws on everything.\n"


def data_files(package: Path) -> set[str]:
    """Files of the package that are not Python: what the wheel must carry as package data."""
    return {
        str(p.relative_to(package.parent))
        for p in package.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the source (the repository stays clean), installed into a
    folder of its own with `pip install --target`: no editable install, no repository on the path."""
    base = tmp_path_factory.mktemp("install")
    source = base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "ideaco", source / "ideaco", ignore=shutil.ignore_patterns("__pycache__"))
    wheels = base / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", wheels, source]
    subprocess.run([str(a) for a in build], check=True, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("ideaco-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = data_files(ROOT / "ideaco") - names
    assert not missing, f"files ideaco reads at run time are not in the wheel: {sorted(missing)}"
    site = base / "site"
    install = [*pip, "install", "--no-deps", "--no-index", "--target", site, wheel]
    subprocess.run([str(a) for a in install], check=True, capture_output=True, timeout=300)
    return site


def ideaco_from(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m ideaco ARGS` importing ideaco from the installed copy only, run in `cwd`."""
    env = clean_env()
    env["PYTHONPATH"] = str(site)  # ahead of the editable install's finder; the repository is not on it
    return subprocess.run(
        [sys.executable, "-m", "ideaco", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def test_the_installed_copy_is_the_one_that_runs(installed, tmp_path) -> None:
    env = {**clean_env(), "PYTHONPATH": str(installed)}
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import ideaco, ideaco.persona as p; print(ideaco.__file__); print(p.PERSONAS_DIR)",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    ).stdout.splitlines()
    assert all(line.startswith(str(installed)) for line in where), where


def test_a_shipped_scenario_runs_by_name_from_another_directory(installed, tmp_path) -> None:
    with FakeOpenAIServer(default=REPLY) as fake:
        result = ideaco_from(
            installed,
            tmp_path,
            "run",
            "startup",
            "--base-url",
            fake.base_url,
            "--duration",
            "5m",
            "--out",
            "run",
        )
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["thoughts"] > 0 and summary["messages"] > 0
    thoughts = [json.loads(line) for line in (tmp_path / "run" / "thoughts.jsonl").read_text().splitlines()]
    assert any(t["spoke"] for t in thoughts)
    prompts = [r["messages"][0]["content"] for r in fake.requests]
    assert all(p.startswith("You are ") for p in prompts)  # the templates were found and rendered


def test_a_scenario_of_ones_own_runs_by_path_with_its_persona_file(installed, tmp_path) -> None:
    folder = tmp_path / "mine"
    (folder / "people").mkdir(parents=True)
    (folder / "office.yaml").write_text(OWN_SCENARIO)
    (folder / "people" / "ana.yaml").write_text(ANA)
    with FakeOpenAIServer(default=REPLY) as fake:
        result = ideaco_from(
            installed, tmp_path, "run", "mine/office.yaml", "--base-url", fake.base_url, "--out", "run"
        )
    assert result.returncode == 0, result.stdout + result.stderr
    state = json.loads((tmp_path / "run" / "state.json").read_text())
    personas = {e["id"]: e["persona"] for e in state["employees"].values()}
    assert personas["ana"]["description"] == "Draws on everything."
    assert personas["ben"]["archetype"] == "zen-slacker" and personas["ben"]["description"]


def test_a_name_that_is_no_shipped_scenario_is_one_line(installed, tmp_path) -> None:
    result = ideaco_from(installed, tmp_path, "run", "startp", "--base-url", "http://127.0.0.1:9/v1")
    assert result.returncode == 2
    assert result.stderr == (
        "ideaco: error: startp: file not found (did you mean 'startup'?) (a shipped scenario runs by its name: release-docs, rest-vs-graphql, startup, startup-zh, workday)\n"
    )
