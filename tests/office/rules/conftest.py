"""Fixtures for the rule tests."""

from __future__ import annotations

import pytest

from tests.office.rules.helpers import History


@pytest.fixture
def history() -> History:
    return History()
