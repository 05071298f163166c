"""A piece of work named in any script (issue 36, item 6): the key made of its description keeps its
words (a Hindi vowel sign included), and the document it expects is named after its key, not
`docs/piece.md` for every Chinese key."""

from __future__ import annotations

import pytest

from ideaco.mind.board import default_document, key_for
from ideaco.office.core.documents import check_path


@pytest.mark.parametrize(
    ("key", "path"),
    [
        ("write-the-api-spec-v2", "docs/write-the-api-spec-v2.md"),  # as before
        ("登录接口", "docs/登录接口.md"),  # was docs/piece.md
        ("用户-登录", "docs/用户-登录.md"),
        ("लॉगिन-पेज", "docs/लॉगिन-पेज.md"),
        ("отчет-q3", "docs/отчет-q3.md"),
        ("{}", "docs/piece.md"),  # nothing to name it after
    ],
)
def test_the_document_a_piece_expects_is_named_after_its_key(key, path):
    assert default_document(key) == path
    assert check_path(path) == path


def test_two_chinese_pieces_expect_two_documents():
    assert default_document("登录接口") != default_document("支付接口")


@pytest.mark.parametrize(
    ("description", "key"),
    [
        ("Write the API spec, v2.", "write-the-api-spec-v2"),
        ("लॉगिन पेज बनाना", "लॉगिन-पेज-बनाना"),  # was ल-ग-न-प-ज-बन-न: the marks split the words
        ("ทำหน้าชำระเงิน", "ทำหน้าชำระเงิน"),
        ("实现用户登录接口", "实现用户登录接口"),
    ],
)
def test_a_key_made_of_a_description_keeps_its_words(description, key):
    assert key_for(description, None, []) == key
    assert key_for(description, None, [key]) == f"{key}-2"
