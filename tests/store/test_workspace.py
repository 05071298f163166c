"""The run's workspace (store/workspace.py): what a document's file holds, what is refused, and what a
resume's rebuild leaves on the disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ideaco.store.workspace import Workspace, WorkspaceError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "workspace"


def on_disk(root: Path) -> dict[str, str]:
    """Every entry under the workspace: a file's text, or what else it is."""
    out = {}
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[key] = "<link>"
        elif path.is_file():
            out[key] = path.read_text(encoding="utf-8")
    return out


def test_documents_are_written_under_their_department_and_read_back(root: Path) -> None:
    workspace = Workspace(root)
    workspace.write("eng/docs/plan.md", "# Plan\n")
    workspace.write("eng/docs/notes.md", "notes")  # its folder exists now
    workspace.write("eng/docs/plan.md", "# Plan v2\n")
    assert on_disk(root) == {"eng/docs/notes.md": "notes", "eng/docs/plan.md": "# Plan v2\n"}
    assert workspace.read("eng/docs/plan.md") == "# Plan v2\n"
    assert workspace.read("eng/docs/missing.md") is None


@pytest.mark.parametrize(
    "key",
    [
        "plan.md",
        "eng/../plan.md",
        "eng/./plan.md",
        "eng//plan.md",
        "eng/.hidden.md",
        ".git/config",
        "eng/a\\b.md",
    ],
)
def test_a_key_that_is_no_workspace_path_is_refused(root: Path, key: str) -> None:
    with pytest.raises(WorkspaceError, match="is not a workspace path"):
        Workspace(root).write(key, "x")
    assert Workspace(root).read("eng/plan.md") is None
    assert not root.exists() or on_disk(root) == {}


def test_a_file_that_is_no_regular_utf8_text_reads_as_none(root: Path, tmp_path: Path) -> None:
    workspace = Workspace(root)
    (root / "eng" / "folder.md").mkdir(parents=True)
    (root / "eng" / "latin.md").write_bytes("caf\xe9".encode("latin-1"))
    os.mkfifo(root / "eng" / "fifo.md")  # with no writer: a blocking open or read would hang
    outside = tmp_path / "secret.md"
    outside.write_text("private", encoding="utf-8")
    (root / "eng" / "link.md").symlink_to(outside)
    for name in ("folder.md", "latin.md", "fifo.md", "link.md"):
        assert workspace.read(f"eng/{name}") is None, name


def test_without_the_nonblocking_and_nofollow_flags_a_document_still_reads(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A platform without O_NONBLOCK or O_NOFOLLOW (Windows) opens the file for reading all the same."""
    workspace = Workspace(root)
    workspace.write("eng/plan.md", "# Plan\n")
    for flag in ("O_NONBLOCK", "O_NOFOLLOW"):
        monkeypatch.delattr(os, flag, raising=False)
    assert workspace.read("eng/plan.md") == "# Plan\n"


def test_a_rebuild_leaves_exactly_the_documents_it_is_given(root: Path) -> None:
    workspace = Workspace(root)
    workspace.write("eng/plan.md", "kept as it is")
    workspace.write("eng/spec.md", "an older version")
    workspace.write("eng/stray.md", "a write a kill left before its thought was logged")
    workspace.write("ops/old/notes.md", "no document's any more")
    kept = (root / "eng" / "plan.md").stat().st_ino
    documents = {
        "eng/plan.md": "kept as it is",
        "eng/spec.md": "the version applied",
        "qa/new.md": "lost, written back",
    }
    workspace.rebuild(documents)
    assert on_disk(root) == documents
    assert (root / "eng" / "plan.md").stat().st_ino == kept  # the same text: not written again


def test_a_rebuild_clears_what_was_planted_in_the_documents_way(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.md").write_text("outside", encoding="utf-8")
    (root / "eng" / "plan.md").mkdir(parents=True)  # a folder where a document goes
    (root / "eng" / "plan.md" / "inner.md").write_text("x", encoding="utf-8")
    os.mkfifo(root / "eng" / "spec.md")  # a FIFO where a document goes
    (root / "ops").symlink_to(outside, target_is_directory=True)  # a link where a department goes
    (root / "eng" / "link.md").symlink_to(outside / "keep.md")
    documents = {"eng/plan.md": "plan", "eng/spec.md": "spec", "ops/notes.md": "notes"}
    Workspace(root).rebuild(documents)
    assert on_disk(root) == documents
    assert [p.name for p in outside.iterdir()] == ["keep.md"]  # nothing outside changed or followed
    assert (outside / "keep.md").read_text(encoding="utf-8") == "outside"


def test_a_workspace_that_is_a_link_is_unlinked_and_made_again(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root.symlink_to(outside, target_is_directory=True)
    Workspace(root).rebuild({"eng/plan.md": "plan"})
    assert not root.is_symlink() and on_disk(root) == {"eng/plan.md": "plan"}
    assert list(outside.iterdir()) == []


def test_nothing_is_written_through_a_link_on_the_way(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "docs").mkdir(parents=True)
    (root / "eng").mkdir(parents=True)
    (root / "eng" / "docs").symlink_to(outside / "docs", target_is_directory=True)
    with pytest.raises(WorkspaceError, match="is a link"):
        Workspace(root).write("eng/docs/plan.md", "x")
    assert list((outside / "docs").iterdir()) == []
