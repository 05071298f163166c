"""A document's data (office/core/documents.py) is values: a think's scratch copy shares the office's
documents (it copies the mapping, not each document), so nothing may change one in place."""

from __future__ import annotations

import dataclasses

import pytest

from ideaco.office.decide.scratch import Scratch
from ideaco.office.rules import documents as rules
from tests.office.conftest import START


def test_a_think_shares_the_offices_documents_and_none_of_them_changes_in_place(make_office) -> None:
    office = make_office()
    doc = rules.request_review(rules.write({}, "eng", "plan.md", "one", "bob", START, "t1"), "bob", "alice")
    office.state.documents[doc.key] = doc
    shared = Scratch(office.state).documents[doc.key]
    assert shared is doc  # the same value, not a copy
    for thing, name, value in (
        (shared, "content", "rewritten"),
        (shared.versions[0], "hash", "0" * 8),
        (shared.review, "status", "approved"),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(thing, name, value)
    assert office.state.documents[doc.key] == doc and doc.content == "one"
