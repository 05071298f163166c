"""Documents' pure rules (issue 20): paths, versions, and the review thread on both sides of its bounds."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from ideaco.office.core import documents as core
from ideaco.office.core.refusal import Refusal
from ideaco.office.rules import documents as rules
from ideaco.office.rules.documents import MAX_BYTES, MAX_DOCUMENTS

NOW = datetime(2026, 1, 5, 9, 0)


@pytest.mark.parametrize("path", ["plan.md", "specs/api.md", "a/b/c/d.txt", "x" * 64, "v1.2_final-B.md"])
def test_a_plain_relative_path_is_kept(path: str) -> None:
    assert core.check_path(f"  {path} ") == path


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("", "needs a path"),
        ("../up.md", "leaves its folder"),
        ("a/../../b.md", "leaves its folder"),
        ("a//b.md", "leaves its folder"),
        ("/etc/passwd", "not relative"),
        ("C:/x.md", "not relative"),
        ("\\\\server\\x", "not relative"),
        (".hidden", "use letters"),
        ("a/b/c/d/e.md", "folders deep"),
        ("sp ace.md", "use letters"),
        ("trailing.", "use letters"),
        ("NUL.txt", "reserved"),
        ("docs/com1", "reserved"),
        ("x" * 121, "longer than 120"),
        ("a" * 65, "use letters"),
    ],
)
def test_a_hostile_path_is_refused_with_its_reason(path: str, reason: str) -> None:
    out = core.check_path(path)
    assert isinstance(out, Refusal) and reason in out.reason


def test_content_is_bounded_in_bytes_not_characters() -> None:
    assert rules.check_content("é" * (MAX_BYTES // 2)) == "é" * (MAX_BYTES // 2)
    assert isinstance(rules.check_content("é" * (MAX_BYTES // 2 + 1)), Refusal)
    assert isinstance(rules.check_content("   "), Refusal)
    for marks in ("#", "---\n", "- [ ]", "```\n```"):  # what the small model wrote as a whole guide
        refused = rules.check_content(marks)
        assert isinstance(refused, Refusal) and "words" in refused.reason, marks
    for words in ("# 2", "ok", "## Étape", "升级"):
        assert rules.check_content(words) == words


def _doc(docs: dict | None = None, author: str = "bob") -> core.Document:
    doc = rules.write(docs or {}, "eng", "a.md", "one", author, NOW, "t1")
    assert isinstance(doc, core.Document)
    return doc


def test_a_write_is_refused_when_the_file_exists_or_the_workspace_is_full() -> None:
    doc = _doc()
    again = rules.write({doc.key: doc}, "eng", "a.md", "two", "bob", NOW, "t2")
    assert isinstance(again, Refusal) and f"base {doc.version}" in again.reason
    full = {f"eng/{i}.md": doc for i in range(MAX_DOCUMENTS)}
    assert isinstance(rules.write(full, "eng", "b.md", "x", "bob", NOW, "t2"), Refusal)
    assert isinstance(rules.write(full | {}, "eng", "b.md", "x", "bob", NOW, "t2"), Refusal)
    almost = dict(list(full.items())[:-1])
    assert isinstance(rules.write(almost, "eng", "b.md", "x", "bob", NOW, "t2"), core.Document)


def test_a_revision_names_the_version_it_revises() -> None:
    doc = _doc()
    assert doc.version == core.version_hash("one") and len(doc.version) == 8
    stale = rules.revise(doc, "two", "0" * 8, "alice", NOW, "t2")
    assert isinstance(stale, Refusal) and "read_document" in stale.reason
    new = rules.revise(doc, "two", doc.version, "alice", NOW, "t2")
    assert isinstance(new, core.Document) and [v.author for v in new.versions] == ["bob", "alice"]
    assert isinstance(rules.revise(new, "two", new.version, "bob", NOW, "t3"), Refusal)  # the same text
    assert isinstance(rules.revise(new, "one", doc.version, "bob", NOW, "t3"), Refusal)  # stale now


def test_a_document_keeps_its_latest_versions_and_counts_them_all() -> None:
    """State stays bounded (issue 28, item 6): KEPT_VERSIONS versions kept, then the oldest dropped."""
    doc = _doc()
    for n in range(1, core.KEPT_VERSIONS):
        doc = rules.revise(doc, f"text {n}", doc.version, "bob", NOW + timedelta(minutes=n), f"t{n}")
    assert (len(doc.versions), doc.earlier, doc.count) == (core.KEPT_VERSIONS, 0, core.KEPT_VERSIONS)
    first = doc.versions[0]
    doc = rules.revise(doc, "one more", doc.version, "bob", NOW + timedelta(hours=1), "t99")
    assert (len(doc.versions), doc.earlier, doc.count) == (core.KEPT_VERSIONS, 1, core.KEPT_VERSIONS + 1)
    assert first not in doc.versions and doc.content == "one more"
    assert core.Document.from_dict(doc.to_dict()) == doc
    assert rules.version_at(doc, NOW + timedelta(minutes=30)) == core.version_hash(
        f"text {core.KEPT_VERSIONS - 1}"
    )


def test_the_reviewer_is_the_lead_unless_the_lead_wrote_it() -> None:
    assert rules.reviewer_for("bob", "alice", ["alice", "bob"]) == "alice"
    assert rules.reviewer_for("alice", "alice", ["alice", "bob"]) == "bob"
    assert rules.reviewer_for("alice", "alice", ["alice"]) is None
    # A member whose skills fit the review is named before the lead; never the author.
    assert rules.reviewer_for("bob", "alice", ["alice", "bob", "dana"], ["dana"]) == "dana"
    assert rules.reviewer_for("bob", "alice", ["alice", "bob", "dana"], ["bob"]) == "alice"
    assert rules.reviewer_for("bob", "alice", ["alice", "bob", "dana"], ["bob", "dana"]) == "dana"
    refused = rules.request_review(_doc(author="alice"), "alice", None)
    assert isinstance(refused, Refusal)
    assert isinstance(rules.request_review(_doc(), "alice", "carol"), Refusal)  # only its author asks


def _rejected(doc: core.Document, times: int, rounds: int, lead: str | None) -> core.Document:
    for _ in range(times):
        reviewer = doc.review.reviewer if doc.review else "carol"
        if doc.review is None or doc.review.status == core.REJECTED:
            asked = rules.request_review(doc, doc.author, reviewer)
            assert isinstance(asked, core.Document)
            doc = asked
        out = rules.verdict(doc, doc.review.reviewer, "reject", "thin", rounds, lead)
        assert isinstance(out, core.Document)
        doc = out
    return doc


def test_the_last_round_hands_the_decision_to_the_lead_whose_word_is_final() -> None:
    before = _rejected(_doc(), 2, 3, "alice")
    assert before.review.status == core.REJECTED and before.review.round == 2 and not before.review.final
    last = _rejected(_doc(), 3, 3, "alice")
    assert last.review.status == core.REQUESTED and last.review.reviewer == "alice" and last.review.final
    failed = rules.verdict(last, "alice", "reject", "no", 3, "alice")
    assert isinstance(failed, core.Document) and failed.review.status == core.FAILED
    passed = rules.verdict(last, "alice", "approve", "ok", 3, "alice")
    assert isinstance(passed, core.Document) and passed.review.status == core.APPROVED
    no_lead = _rejected(_doc(), 3, 3, None)  # nobody else to decide: the last rejection is final
    assert no_lead.review.status == core.FAILED and no_lead.review.round == 3


@pytest.mark.parametrize(
    ("author", "lead"),
    [("bob", "carol"), ("carol", "carol"), ("bob", None)],
    ids=["the-lead-reviews", "the-lead-wrote-it", "no-lead"],
)
def test_when_the_lead_cannot_take_over_the_last_rejection_is_final(author: str, lead: str | None) -> None:
    # Carol reviews (Bob's document when she leads, and hers is Bob's to review when she wrote it).
    doc = _doc(author=author)
    reviewer = "bob" if author == "carol" else "carol"
    doc = rules.request_review(doc, author, reviewer)
    assert isinstance(doc, core.Document)
    before = _rejected(doc, 2, 3, lead)
    assert before.review.status == core.REJECTED and before.review.round == 2
    assert isinstance(rules.rebut(before, author, "it is fine"), core.Document)  # still open to argue
    last = _rejected(doc, 3, 3, lead)
    assert last.review.status == core.FAILED and last.review.round == 3
    assert last.review.reviewer == reviewer and not last.review.final
    assert isinstance(rules.request_review(last, author, reviewer), Refusal)  # no fourth round
    assert isinstance(rules.rebut(last, author, "it is fine"), Refusal)
    assert isinstance(rules.verdict(last, reviewer, "approve", "", 3, lead), Refusal)
    one = _rejected(doc, 1, 1, lead)  # one round: the first rejection is final
    assert one.review.status == core.FAILED


def test_a_verdict_needs_its_reviewer_and_a_waiting_review() -> None:
    doc = rules.request_review(_doc(), "bob", "carol")
    assert isinstance(doc, core.Document)
    assert isinstance(rules.verdict(doc, "dave", "approve", "", 3, None), Refusal)
    assert isinstance(rules.verdict(doc, "carol", "maybe", "", 3, None), Refusal)
    done = rules.verdict(doc, "carol", "approve", "", 3, None)
    assert isinstance(done, core.Document)
    assert isinstance(rules.verdict(done, "carol", "approve", "", 3, None), Refusal)
    assert isinstance(rules.revise(done, "two", done.version, "bob", NOW, "t9"), Refusal)  # approved: kept


def test_a_rebuttal_answers_a_rejection_and_a_persuaded_reviewer_passes_it() -> None:
    doc = _rejected(_doc(), 1, 3, None)
    assert isinstance(rules.rebut(doc, "carol", "no"), Refusal)  # not its author
    assert isinstance(rules.rebut(doc, "bob", "  "), Refusal)
    argued = rules.rebut(doc, "bob", "it is in the guide")
    assert isinstance(argued, core.Document) and argued.review.status == core.REBUTTED
    assert isinstance(rules.rebut(argued, "bob", "again"), Refusal)
    passed = rules.verdict(argued, "carol", "approve", "fair", 3, None)
    assert isinstance(passed, core.Document)
    assert passed.review.status == core.APPROVED  # approved after the author's rebuttal
    assert passed.review.streak == 0


def test_a_document_round_trips_through_its_record() -> None:
    doc = _rejected(_doc(), 2, 3, "alice")
    assert core.Document.from_dict(doc.to_dict()) == doc


def test_while_its_review_is_open_only_the_author_revises_a_document() -> None:
    doc = rules.request_review(_doc(), "bob", "carol")
    assert isinstance(doc, core.Document)
    rejected = _rejected(doc, 1, 3, None)
    argued = rules.rebut(rejected, "bob", "it is in the guide")
    assert isinstance(argued, core.Document)
    for open_ in (doc, rejected, argued):  # requested, rejected, rebutted
        out = rules.revise(open_, "carol's text", open_.version, "carol", NOW, "t5")
        assert isinstance(out, Refusal) and "only its author revises it now" in out.reason
    mine = rules.revise(rejected, "two", rejected.version, "bob", NOW, "t5")
    assert isinstance(mine, core.Document) and mine.author == "bob"
    failed = _rejected(doc, 3, 3, None)  # the thread is over: anyone may revise again
    assert isinstance(rules.revise(failed, "three", failed.version, "carol", NOW, "t6"), core.Document)


def test_a_verdict_applies_to_the_version_its_reviewer_read() -> None:
    doc = rules.request_review(_doc(), "bob", "carol")
    assert isinstance(doc, core.Document)
    later = NOW.replace(minute=5)
    v2 = rules.revise(doc, "two", doc.version, "bob", later, "t2")  # the author revises under review
    assert isinstance(v2, core.Document)
    assert rules.version_at(v2, NOW) == doc.version and rules.version_at(v2, later) == v2.version
    assert rules.version_at(v2, NOW.replace(hour=8)) is None  # before it was written
    stale = rules.verdict(v2, "carol", "approve", "ok", 3, None, read=doc.version)
    assert isinstance(stale, Refusal) and f"changed to version {v2.version} after you read it" in stale.reason
    unseen = rules.verdict(v2, "carol", "approve", "ok", 3, None, read="")
    assert isinstance(unseen, Refusal)
    passed = rules.verdict(v2, "carol", "approve", "ok", 3, None, read=v2.version)
    assert isinstance(passed, core.Document) and passed.review.status == core.APPROVED


def _docs(*paths: str) -> dict[str, core.Document]:
    docs: dict[str, core.Document] = {}
    for path in paths:
        doc = rules.write(docs, "eng", path, "text", "bob", NOW, "t1")
        assert isinstance(doc, core.Document), (path, doc)
        docs[doc.key] = doc
    return docs


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("docs/a.md", "docs"),  # a file where a document's folder is
        ("specs", "specs/b.md"),  # a document where a folder goes
        ("a/b/c.md", "a"),
        ("a/b/c.md", "a/b"),
        ("a", "a/b/c.md"),
        ("a/b", "a/b/c/d.md"),
    ],
)
def test_a_documents_path_may_not_be_another_documents_folder(first: str, second: str) -> None:
    out = rules.write(_docs(first), "eng", second, "two", "bob", NOW, "t2")
    assert isinstance(out, Refusal)
    assert out.reason.startswith(rules.FOLDER_CLASH) and first in out.reason and second in out.reason


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("docs/a.md", "docs2/a.md"),  # a sibling folder
        ("docs/a.md", "docsx"),  # the same prefix, not the same part
        ("docs/a.md", "doc"),
        ("docs/a.md", "docs.md"),
        ("docs/a.md", "docs/a.md.bak"),
        ("docs/a.md", "docs/a"),
        ("docs/a.md", "docs/b.md"),  # the same folder
        ("specs", "specs2/b.md"),
        ("specs", "specsx/b.md"),
        ("specs.md", "specs/b.md"),
    ],
)
def test_names_that_only_share_a_prefix_sit_side_by_side(first: str, second: str) -> None:
    out = rules.write(_docs(first), "eng", second, "two", "bob", NOW, "t2")
    assert isinstance(out, core.Document) and out.path == second
    assert rules.clashes({**_docs(first), out.key: out}) == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("docs/a.md", "Docs/A.md"),
        ("docs/a.md", "DOCS/a.md"),
        ("notes/café.md", "notes/cafe\u0301.md"),  # é composed and decomposed
        ("Straße.md", "STRASSE.md"),  # casefold: ß is ss
        ("接口/Readme.md", "接口/README.md"),
    ],
)
def test_paths_that_differ_only_by_case_or_normalisation_are_one_document(first: str, second: str) -> None:
    """Issue 37, item 4: one file on a case-insensitive disk (macOS, Windows), so one document."""
    docs = _docs(first)
    out = rules.write(docs, "eng", second, "two", "bob", NOW, "t2")
    assert isinstance(out, Refusal) and out.reason.startswith(f"{first} exists (version ")
    assert core.find(docs, "eng", second) is docs[f"eng/{first}"]
    assert core.find(docs, "ops", second) is None  # another department's folder


@pytest.mark.parametrize(
    ("first", "second"), [("Docs", "docs/a.md"), ("docs/a.md", "DOCS"), ("A/b.md", "a/B.MD/c.md")]
)
def test_a_folder_differing_only_by_case_still_clashes(first: str, second: str) -> None:
    out = rules.write(_docs(first), "eng", second, "two", "bob", NOW, "t2")
    assert isinstance(out, Refusal) and out.reason.startswith(rules.FOLDER_CLASH)


def test_a_folder_of_another_department_is_no_clash() -> None:
    docs = _docs("docs/a.md")
    assert isinstance(rules.write(docs, "ops", "docs", "two", "bob", NOW, "t2"), core.Document)
    assert isinstance(rules.write(docs, "eng2", "docs", "two", "bob", NOW, "t2"), core.Document)


def test_clashes_names_each_document_that_is_anothers_folder() -> None:
    docs = _docs("docs/a.md", "x/y.md")
    forged = rules.write({}, "eng", "docs", "x", "bob", NOW, "t3")
    assert isinstance(forged, core.Document)
    assert rules.clashes({**docs, forged.key: forged}) == [("eng/docs", "eng/docs/a.md")]
    assert rules.clashes(docs) == []


# --- the documented bounds, on both sides, and what a record keeps --------------------------------------


def test_a_document_holds_16000_bytes_of_utf8_and_no_more() -> None:
    assert rules.check_content("é" * 8000) == "é" * 8000
    over = rules.check_content("é" * 8000 + "x")
    assert isinstance(over, Refusal) and over.reason == "content of 16001 bytes is over the limit of 16000"


def test_a_workspace_holds_200_documents() -> None:
    doc = _doc()
    full = {f"eng/{i}.md": doc for i in range(200)}
    refused = rules.write(full, "eng", "b.md", "x", "bob", NOW, "t2")
    assert isinstance(refused, Refusal) and refused.reason == "the workspace holds 200 documents already"
    assert not isinstance(
        rules.write(dict(list(full.items())[:199]), "eng", "b.md", "x", "bob", NOW, "t2"), Refusal
    )


def test_a_path_of_120_characters_is_a_path() -> None:
    path = "x" * 60 + "/" + "y" * 59
    assert len(path) == 120 and rules.write({}, "eng", path, "one", "bob", NOW, "t1").path == path
    longer = rules.write({}, "eng", path + "z", "one", "bob", NOW, "t1")
    assert isinstance(longer, Refusal) and longer.reason == "path longer than 120 characters"


@pytest.mark.parametrize(
    ("name", "reserved"), [("com9.md", True), ("lpt9.txt", True), ("com10.md", False), ("lpt10.md", False)]
)
def test_windows_device_names_are_refused_and_names_that_only_look_like_them_are_not(
    name: str, reserved: bool
) -> None:
    out = rules.write({}, "eng", f"docs/{name}", "one", "bob", NOW, "t1")
    assert isinstance(out, Refusal) is reserved


def test_a_document_keeps_its_20_latest_versions() -> None:
    doc = _doc()
    for n in range(1, 21):
        doc = rules.revise(doc, f"text {n}", doc.version, "bob", NOW + timedelta(minutes=n), f"t{n}")
    assert (len(doc.versions), doc.earlier, doc.count) == (20, 1, 21)
    assert [v.thought for v in doc.versions] == [f"t{n}" for n in range(1, 21)]


def test_review_notes_and_a_rebuttal_keep_1000_characters() -> None:
    asked = rules.request_review(_doc(), "bob", "carol")
    rejected = rules.verdict(asked, "carol", "reject", "n" * 1001, 3, None)
    assert rejected.review.notes == "n" * 1000
    argued = rules.rebut(rejected, "bob", "a" * 1001)
    assert argued.review.argument == "a" * 1000


def test_a_rejection_counts_its_round_and_its_streak_and_an_approval_ends_the_streak() -> None:
    asked = rules.request_review(_doc(), "bob", "carol")
    assert (asked.review.round, asked.review.streak) == (0, 0)
    once = rules.verdict(asked, "carol", "reject", "thin", 3, None)
    assert (once.review.round, once.review.streak) == (1, 1)
    twice = rules.verdict(rules.rebut(once, "bob", "it is fine"), "carol", "reject", "still thin", 3, None)
    assert (twice.review.round, twice.review.streak) == (2, 2)
    passed = rules.verdict(rules.request_review(twice, "bob", "carol"), "carol", "approve", "ok", 3, None)
    assert (passed.review.round, passed.review.streak) == (2, 0)


def test_a_rebutted_review_round_trips_through_its_record_with_its_argument() -> None:
    argued = rules.rebut(_rejected(_doc(), 1, 3, None), "bob", "it is in the guide")
    again = type(argued).from_dict(argued.to_dict())
    assert again == argued and again.review.argument == "it is in the guide"


def test_a_review_recorded_without_its_counts_has_none() -> None:
    """A state.json written before a review kept its round and streak reads them as none yet."""
    record = rules.request_review(_doc(), "bob", "carol").to_dict()
    record["review"] = {"reviewer": "carol", "status": "requested"}
    review = type(_doc()).from_dict(record).review
    assert (review.round, review.streak, review.notes, review.argument, review.judged) == (0, 0, "", "", "")
