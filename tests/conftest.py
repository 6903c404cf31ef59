"""Shared fixtures and Hypothesis profiles ("ci": derandomized, no deadline)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Fixtures for real components (llama.cpp server, Ray cluster, Chromium, scripted HTTP server).
pytest_plugins = ["tests.support.fixtures", "tests.integration.stores.servers"]

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev", deadline=None, max_examples=50, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="Rewrite the golden files from the output."
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(autouse=True, scope="session")
def _cache_in_a_temporary_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep embeddings cached by the tests out of the user's cache directory."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
        yield


@pytest.fixture(autouse=True)
def _closed_circuit_breakers() -> Iterator[None]:
    """Start every test with the endpoints' circuit breakers closed (they live per process)."""
    yield
    from ragchunk.backends.guards import reset_breakers

    reset_breakers()
