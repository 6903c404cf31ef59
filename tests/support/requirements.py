"""Skip a test when a real component is not installed, naming what to install; fail in CI.

`.ci/run` installs every component and sets RAGCHUNK_REQUIRE_INTEGRATION=1, so there a missing
component fails the run instead of skipping quietly.
"""

from __future__ import annotations

import importlib.util
import os
from typing import NoReturn

import pytest

REQUIRE_ENV = "RAGCHUNK_REQUIRE_INTEGRATION"


def missing(reason: str) -> NoReturn:
    """Skip with `reason`, or fail with it when RAGCHUNK_REQUIRE_INTEGRATION is set."""
    if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
        pytest.fail(f"{reason} ({REQUIRE_ENV} is set, so this cannot be skipped)", pytrace=False)
    pytest.skip(reason)


def require_module(module: str, install: str) -> None:
    """Skip (or fail, in CI) unless `module` can be imported; `install` says how to get it."""
    if importlib.util.find_spec(module) is None:
        missing(f"{module} is not installed: {install}")
