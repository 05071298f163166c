"""What a resume finds planted in a run's workspace (issue 28, items 10 and 14).

`--resume` rebuilds the workspace from what `applied` says. Something put where a document goes
(a FIFO, a link, a folder), or in the way of its folder (a link, a file), used to hang the resume (a FIFO was read
before it was checked) or end it in a traceback. Now each is repaired: the entry is written again
as the document's regular file, a link goes (the link only: nothing it points to changes), and
the run goes on. The resume is a real process, so a hang fails at a deadline, never hangs the suite.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_workspace_folders import _run, _text
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.processes import finish, start_ideaco
from tests.office.conftest import thought

DOCUMENTS = ("docs/a.md", "docs2/a.md", "docsx", "specs")  # what the run's workspace holds (eng/...)
Plant = Callable[[Path, Path], None]  # (the workspace, a folder outside the run directory)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("finished"), [])


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(default=json.dumps(thought())) as server:
        yield server


def _workspace(root: Path) -> dict[str, str]:
    """Every entry under the workspace but its folders: a regular file's text, else what it is."""
    out = {}
    for here, dirs, names in os.walk(root, followlinks=False):
        for name in [*dirs, *names]:
            path = Path(here) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[key] = "link"
            elif path.is_file():
                out[key] = path.read_text()
            elif not path.is_dir():
                out[key] = "special"
    return out


def _resume(run: Path, fake: FakeOpenAIServer, log: Path) -> tuple[int, str]:
    proc = start_ideaco(["run", "--resume", run, "--duration", "2m", "--base-url", fake.base_url], log=log)
    code = finish(proc, log)  # a resume that hangs fails here, at the deadline
    return code, log.read_text(errors="replace")


def _fifo_at_a_document(ws: Path, _outside: Path) -> None:
    (ws / "eng/docs/a.md").unlink()
    os.mkfifo(ws / "eng/docs/a.md")


def _fifo_beside(ws: Path, _outside: Path) -> None:
    os.mkfifo(ws / "eng/stray.md")


def _link_at_a_document(ws: Path, outside: Path) -> None:
    (ws / "eng/docs/a.md").unlink()
    (ws / "eng/docs/a.md").symlink_to(outside / "victim.md")


def _dangling_link_at_a_document(ws: Path, outside: Path) -> None:
    (ws / "eng/docs/a.md").unlink()
    (ws / "eng/docs/a.md").symlink_to(outside / "nowhere.md")


def _link_at_a_folder(ws: Path, outside: Path) -> None:
    shutil.rmtree(ws / "eng/docs")
    (ws / "eng/docs").symlink_to(outside, target_is_directory=True)


def _link_at_the_department(ws: Path, outside: Path) -> None:
    shutil.rmtree(ws / "eng")
    (ws / "eng").symlink_to(outside, target_is_directory=True)


def _link_at_the_workspace(ws: Path, outside: Path) -> None:
    shutil.rmtree(ws)
    ws.symlink_to(outside, target_is_directory=True)


def _folder_at_a_document(ws: Path, _outside: Path) -> None:
    (ws / "eng/specs").unlink()
    (ws / "eng/specs/deep").mkdir(parents=True)
    (ws / "eng/specs/deep/planted.md").write_text("planted")


def _file_at_a_folder(ws: Path, _outside: Path) -> None:
    shutil.rmtree(ws / "eng/docs")
    (ws / "eng/docs").write_text("planted")


def _file_at_the_workspace(ws: Path, _outside: Path) -> None:
    shutil.rmtree(ws)
    ws.write_text("planted")


PLANTS: dict[str, Plant] = {
    "a FIFO where a document goes": _fifo_at_a_document,
    "a FIFO beside the documents": _fifo_beside,
    "a link where a document goes": _link_at_a_document,
    "a dangling link where a document goes": _dangling_link_at_a_document,
    "a link where a document's folder goes": _link_at_a_folder,
    "a link where the department's folder goes": _link_at_the_department,
    "a link where the workspace goes": _link_at_the_workspace,
    "a folder where a document goes": _folder_at_a_document,
    "a file where a document's folder goes": _file_at_a_folder,
    "a file where the workspace goes": _file_at_the_workspace,
}


@pytest.mark.parametrize("plant", PLANTS.values(), ids=PLANTS.keys())
def test_a_resume_repairs_what_was_planted_in_the_workspace(
    finished: Path, fake: FakeOpenAIServer, tmp_path: Path, plant: Plant
) -> None:
    run, outside = tmp_path / "run", tmp_path / "outside"
    shutil.copytree(finished, run)
    outside.mkdir()
    (outside / "victim.md").write_text("victim")
    plant(run / "workspace", outside)
    code, output = _resume(run, fake, tmp_path / "resume.txt")
    assert code == 0 and "Traceback" not in output, output
    assert _workspace(run / "workspace") == {f"eng/{p}": _text(p) for p in DOCUMENTS}
    assert {p.name: p.read_text() for p in outside.iterdir()} == {"victim.md": "victim"}
