"""The package's public names."""

from __future__ import annotations

import pytest

import ragchunk


def test_every_public_name_resolves_lazily() -> None:
    assert sorted(ragchunk._HOMES) == sorted(ragchunk.__all__)
    for name in ragchunk.__all__:
        assert getattr(ragchunk, name).__name__ == name
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        _ = ragchunk.nothing
