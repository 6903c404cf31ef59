"""The pytest fixtures for real components, registered by tests/conftest.py (`pytest_plugins`).

Session-scoped, started on first use, stopped at the end of the run:
    llama_server   LlamaServer: llama.cpp's OpenAI-compatible server (chat + embeddings)
    ray_cluster    RayCluster: a `ray start --head` node on 127.0.0.1 (2 CPUs)
    browser        playwright Browser: headless Chromium
Per test:
    scripted_server   ScriptedServer: a programmable, fault-injecting OpenAI-compatible server
    refused_url       a base URL whose port refuses connections
    ray_driver        the `ray` module, connected to `ray_cluster` for this test
    ray_local         the `ray` module, with a private in-process Ray instance (1 CPU; ~10 s)
    open_page         open_page(path, width=, height=) -> OfflinePage (network blocked)

Sockets: the suite runs with pytest-socket's --disable-socket. A test marked `localhost` may
connect to 127.0.0.1 only (pytest-socket's allow_hosts); tests that use a network fixture are
marked `localhost` here automatically. Subprocesses (the servers, the CLI) are not affected by
pytest-socket at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

from tests.support import browser as _browser
from tests.support import llama as _llama
from tests.support import ray_cluster as _ray
from tests.support import scripted as _scripted

if TYPE_CHECKING:
    from playwright.sync_api import Browser

LOOPBACK = ["127.0.0.1", "::1"]
NETWORK_FIXTURES = frozenset(
    {"llama_server", "ray_cluster", "ray_driver", "ray_local", "scripted_server", "refused_url"}
    | {"pg_server", "chroma_http"}  # tests/integration/stores/servers.py
)

# Before any test imports ray (see tests/support/ray_cluster.py).
_ray.configure_environment()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark tests that use a network fixture `localhost`; let `localhost` tests reach 127.0.0.1."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & NETWORK_FIXTURES and item.get_closest_marker("localhost") is None:
            item.add_marker(pytest.mark.localhost)
        if item.get_closest_marker("localhost") is not None:
            item.add_marker(pytest.mark.allow_hosts(LOOPBACK))


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_llama.LlamaServer]:
    """A llama.cpp server over SmolLM2-135M-Instruct: chat and embeddings, API key required."""
    with _llama.llama_server(tmp_path_factory.mktemp("llama")) as server:
        yield server


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_ray.RayCluster]:
    """A Ray head node on 127.0.0.1 with 2 CPUs; its address is `ray_cluster.address`."""
    with _ray.ray_head(tmp_path_factory.mktemp("ray")) as cluster:
        yield cluster


@pytest.fixture
def ray_driver(ray_cluster: _ray.RayCluster) -> Iterator[ModuleType]:
    """The `ray` module, connected to `ray_cluster` for one test (disconnected afterwards)."""
    with _ray.connected(ray_cluster.address) as ray:
        yield ray


@pytest.fixture
def ray_local() -> Iterator[ModuleType]:
    """The `ray` module with a private in-process instance (`ray.init`), shut down afterwards."""
    with _ray.local_ray(num_cpus=1) as ray:
        yield ray


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium (Debian's) driven by Playwright, shared by the session."""
    with _browser.chromium() as launched:
        yield launched


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Callable[..., _browser.OfflinePage]]:
    """Open a file in a fresh offline page: `open_page(path, width=1280, height=800)`."""
    with ExitStack() as stack:

        def open_(path: Path, width: int = 1280, height: int = 800) -> _browser.OfflinePage:
            page = stack.enter_context(_browser.offline_page(browser, width, height))
            page.open(path)
            return page

        yield open_


@pytest.fixture
def scripted_server() -> Iterator[_scripted.ScriptedServer]:
    """A programmable OpenAI-compatible server on 127.0.0.1 (see tests/support/scripted.py)."""
    server = _scripted.ScriptedServer()
    try:
        yield server
    finally:
        server.stop()
    if server.errors:
        raise server.errors[0]


@pytest.fixture
def refused_url() -> Iterator[str]:
    """A base URL (`http://127.0.0.1:PORT/v1`) whose port refuses connections."""
    with _scripted.refused_url() as url:
        yield url
