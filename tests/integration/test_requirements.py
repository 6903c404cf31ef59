"""A missing component skips its tests with what to install, and fails them in CI instead."""

from __future__ import annotations

import pytest

from tests.support.requirements import REQUIRE_ENV, require_module


def test_missing_module_skips_naming_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"no_such_module_rc is not installed: pip x"):
        require_module("no_such_module_rc", "pip x")


def test_missing_module_fails_when_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match=r"cannot be skipped"):
        require_module("no_such_module_rc", "pip x")


def test_installed_module_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_ENV, "1")
    require_module("json", "nothing to install")
