"""The shared sync suite's fixture: ``store_url``, one empty store per test, on every store."""

from __future__ import annotations

import importlib.util
import os

import pytest

from tests.integration.stores.backends import STORES


@pytest.fixture(params=sorted(STORES))
def store_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    backend = STORES[request.param]
    missing = [name for name in backend.needs if importlib.util.find_spec(name) is None]
    if missing:
        message = f"the {request.param} store needs {', '.join(missing)}"
        if os.environ.get("RAGCHUNK_REQUIRE_INTEGRATION") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return backend.url(tmp_path_factory.mktemp(f"store-{request.param}"), request)
