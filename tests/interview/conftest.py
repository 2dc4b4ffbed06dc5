"""Fixtures for the web app's tests."""

import pytest

from tests.interview.content_tree import ContentTree


@pytest.fixture
def content(tmp_path) -> ContentTree:
    """An empty question bank (two topics, one seed document) in a temporary content folder."""
    return ContentTree(tmp_path / "content")
