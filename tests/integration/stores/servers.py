"""Real servers for the store tests: PostgreSQL with pgvector (pgserver's wheel) and Chroma.

``postgres_server(base)`` and ``chroma_server(base)`` are context managers that start a server
in ``base`` (a temporary directory), yield it, and stop its whole process group afterwards
(``tests/support/processes.running``). The pytest fixtures below keep one of each per session;
the ``*_url`` factories give each test a store of its own on them (a table or collection named
after a counter), which is what the shared sync suite's list of store factories takes.

PostgreSQL with pgvector: the ``pgserver`` wheel ships PostgreSQL 16 and the ``vector``
extension (0.6.2) under ``pgserver/pginstall``. Its own ``get_server`` runs ``useradd
pgserver`` and widens the permissions of every parent folder when it runs as root (PostgreSQL
refuses to run as root); here the binaries are run directly, as ``nobody`` when the tests run as
root (through ``setpriv``), on a data folder made for that user under ``/tmp``. If ``nobody``
cannot reach the wheel's binaries (a virtualenv under ``/root``), they are copied beside the
data first, with the libraries they load from ``pgserver.libs`` (about 40 MB). The server
listens on 127.0.0.1 at a free port (password required: SCRAM) and on a Unix socket in its
folder (trust, for the fixture's own set-up).

Chroma: ``chroma run --path DIR --host 127.0.0.1 --port PORT`` (the Rust server in the
``chromadb`` wheel), ready when ``/api/v2/heartbeat`` answers.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.http import request
from tests.support.processes import free_port, running
from tests.support.requirements import missing, require_module

PASSWORD = "s3cret-ragchunk-7f3a"  # a fake password: tests check it never appears in messages
INSTALL_PG = "pip install 'ragchunk[integration]' (pgserver, psycopg[binary])"
INSTALL_CHROMA = "pip install 'ragchunk[integration]' (chromadb)"
_UNPRIVILEGED = "nobody"
_names = itertools.count(1)


@dataclass(frozen=True, slots=True)
class PostgresServer:
    """A running PostgreSQL with pgvector: TCP on 127.0.0.1:``port``, socket in ``socket_dir``."""

    port: int
    socket_dir: Path
    log: Path

    def url(self, *, password: str = PASSWORD, query: str = "") -> str:
        """Return a ``postgresql://`` URL of the server's ``postgres`` database."""
        url = f"postgresql://postgres:{password}@127.0.0.1:{self.port}/postgres"
        return f"{url}?{query}" if query else url

    def store_url(self, **parameters: str) -> str:
        """Return the URL of a fresh store (a table no other test uses) on this server."""
        query = "&".join(f"{k}={v}" for k, v in {"table": f"t{next(_names)}", **parameters}.items())
        return self.url(query=query)


@dataclass(frozen=True, slots=True)
class ChromaServer:
    """A running ``chroma run`` server on 127.0.0.1:``port``."""

    port: int
    log: Path

    def store_url(self) -> str:
        """Return the URL of a fresh collection on this server."""
        return f"chroma://127.0.0.1:{self.port}/coll-{next(_names)}"


def _pginstall() -> Path:
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        missing(f"pgserver is not installed: {INSTALL_PG}")
    require_module("psycopg", INSTALL_PG)
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall"


def _as_user(command: list[str]) -> list[str]:
    """Return ``command`` run as an unprivileged user when the tests run as root."""
    if os.geteuid() != 0:
        return command
    return ["setpriv", f"--reuid={_UNPRIVILEGED}", "--regid=nogroup", "--clear-groups", *command]


@contextmanager
def postgres_server(base: Path | None = None) -> Iterator[PostgresServer]:
    """Start PostgreSQL with pgvector in a new folder, yield it, stop it (module docstring)."""
    install = _pginstall()
    import psycopg

    # Short and world-traversable: a socket path must fit in 107 bytes, and `nobody` must reach it.
    home = Path(tempfile.mkdtemp(prefix="rcpg-", dir=base if os.geteuid() != 0 else "/tmp"))
    try:
        home.chmod(0o755)
        if os.geteuid() == 0:
            user = pwd.getpwnam(_UNPRIVILEGED)
            os.chown(home, user.pw_uid, user.pw_gid)
            probe = subprocess.run(
                _as_user([str(install / "bin" / "postgres"), "--version"]),
                capture_output=True,
                check=False,
            )
            if probe.returncode != 0:  # the binaries find their libraries at ../../../pgserver.libs
                libs = install.parent.parent / "pgserver.libs"
                shutil.copytree(libs, home / "site" / "pgserver.libs")
                install = Path(shutil.copytree(install, home / "site" / "pgserver" / "pginstall"))
        data, log, pwfile = home / "data", home / "postgres.log", home / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if os.geteuid() == 0:
            os.chown(pwfile, user.pw_uid, user.pw_gid)
        initdb = [
            str(install / "bin" / "initdb"), "-D", str(data), "-U", "postgres", "-E", "UTF8",
            "--auth-local=trust", "--auth-host=scram-sha-256", f"--pwfile={pwfile}", "--no-sync",
        ]  # fmt: skip
        done = subprocess.run(_as_user(initdb), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr.strip()[-2000:]}")
        port = free_port()
        command = [
            str(install / "bin" / "postgres"), "-D", str(data), "-h", "127.0.0.1",
            "-p", str(port), "-k", str(home), "-c", "fsync=off", "-c", "max_connections=40",
        ]  # fmt: skip

        def ready() -> bool:
            try:
                psycopg.connect(
                    host=str(home), port=port, user="postgres", dbname="postgres"
                ).close()
            except psycopg.OperationalError:
                return False
            return True

        with running(
            _as_user(command), ready=ready, log=log, timeout=60, name="postgres (pgserver)"
        ):
            yield PostgresServer(port=port, socket_dir=home, log=log)
    finally:
        shutil.rmtree(home, ignore_errors=True)


@contextmanager
def chroma_server(base: Path) -> Iterator[ChromaServer]:
    """Start ``chroma run`` on a new folder under ``base``, yield it, stop it."""
    require_module("chromadb", INSTALL_CHROMA)
    chroma = Path(sys.executable).with_name("chroma")
    if not chroma.exists():
        missing(f"the chroma command is not installed beside {sys.executable}: {INSTALL_CHROMA}")
    base.mkdir(parents=True, exist_ok=True)
    port = free_port()
    command = [
        str(chroma), "run", "--path", str(base / "data"), "--host", "127.0.0.1", "--port", str(port)
    ]  # fmt: skip

    def ready() -> bool:
        try:
            return request(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2).status == 200
        except OSError:
            return False

    with running(command, ready=ready, log=base / "chroma.log", timeout=60, name="chroma run"):
        yield ChromaServer(port=port, log=base / "chroma.log")


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """One PostgreSQL with pgvector for the session."""
    with postgres_server(tmp_path_factory.mktemp("pg")) as server:
        yield server


@pytest.fixture(scope="session")
def chroma_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """One ``chroma run`` server for the session."""
    with chroma_server(tmp_path_factory.mktemp("chroma")) as server:
        yield server


def pgvector_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store factory: a fresh ``postgresql://`` store on the session's server."""
    del tmp_path  # every factory takes (request, tmp_path)
    server: PostgresServer = request.getfixturevalue("pg_server")
    return server.store_url()


def chroma_server_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store factory: a fresh ``chroma://host:port/collection`` on the session's server."""
    del tmp_path
    server: ChromaServer = request.getfixturevalue("chroma_http")
    return server.store_url()


def chroma_embedded_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store factory: a fresh embedded ``chroma:////abs/path/collection`` in ``tmp_path``."""
    del request
    require_module("chromadb", INSTALL_CHROMA)
    return f"chroma:///{tmp_path / 'chroma'}/coll-{next(_names)}"
