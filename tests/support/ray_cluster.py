"""A real Ray cluster for the tests: `ray start --head` on 127.0.0.1, and in-process `ray.init`.

Ray reads three environment variables when it is imported or started; `configure_environment()`
sets them for the test process (and so for every subprocess it starts, the CLI included) before
anything imports ray:

- RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0: Ray's single-node mode. Without it Ray replaces 127.0.0.1
  by the machine's routable address (192.0.2.2 here) for the node and the driver, its GCS listens
  on all interfaces, and `ray.init(address="127.0.0.1:PORT")` then fails to reach a head that was
  started with it. With it, every Ray socket listens on 127.0.0.1 only.
- RAY_USAGE_STATS_ENABLED=0: no usage report is sent (nothing may go out from the tests).
- RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S=0: SIGTERM stops the head in ~2 s instead of draining
  for 30 s.
- RAY_AUTH_MODE=token with a fresh RAY_AUTH_TOKEN per test run: Ray 2.60 turns token auth on
  for a new local cluster by default and then writes ~/.ray/auth_token, and `ray start` turns it
  on whenever that file exists, while a driver connecting to an address does not, so without an
  explicit mode the result depends on what ran on the machine before. Token mode, the default a
  user gets, with the token in the environment: nothing is written under ~/.ray.

Each cluster gets its own short temporary directory (`--temp-dir`): Ray's Unix socket paths must
stay under 108 bytes, and the shared /tmp/ray (whose `ray_current_cluster` file a bare
`ray.init()` would connect to) is never touched.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tests.support.processes import free_port, running
from tests.support.requirements import require_module

INSTALL = "pip install 'ragchunk[ray]'"
RAY_ENVIRONMENT = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0",
    "RAY_AUTH_MODE": "token",
}


def configure_environment() -> None:
    """Set Ray's environment for this process and its children (see the module docstring)."""
    os.environ.update(RAY_ENVIRONMENT)
    if os.environ.get("RAY_AUTH_TOKEN_OWNER") != "ragchunk-tests":
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
        os.environ["RAY_AUTH_TOKEN_OWNER"] = "ragchunk-tests"


@dataclass(frozen=True, slots=True)
class RayCluster:
    """A running head node: connect with `ray.init(address=cluster.address)`."""

    address: str  # "127.0.0.1:PORT" (the GCS)
    num_cpus: int
    temp_dir: Path
    log: Path
    pid: int  # `ray start --block`, leader of the process group of all the cluster's processes


def _ray_executable() -> str:
    path = Path(sys.executable).with_name("ray")
    return str(path) if path.is_file() else "ray"


@contextmanager
def ray_head(log_dir: Path, num_cpus: int = 2, timeout: float = 120.0) -> Iterator[RayCluster]:
    """Start a head node on 127.0.0.1 at a free port, yield it, stop all its processes on exit.

    `ray start --block` stays in the foreground as the leader of its own process group; stopping
    it stops the GCS, raylet, agents and workers (the group is then swept), never by name, so
    other Ray clusters on the machine are left alone (`ray stop` would kill them all).
    """
    require_module("ray", INSTALL)
    configure_environment()
    port = free_port()
    temp_dir = Path(tempfile.mkdtemp(prefix="rc-ray-", dir="/tmp"))
    log = log_dir / "ray-head.log"
    command = [
        _ray_executable(),
        "start",
        "--head",
        "--block",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        f"--num-cpus={num_cpus}",
        "--num-gpus=0",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--temp-dir={temp_dir}",
    ]
    try:
        with running(
            command,
            ready=lambda: "Ray runtime started" in log.read_text(errors="replace"),
            log=log,
            timeout=timeout,
            env=os.environ,
            name="ray head node",
        ) as process:
            yield RayCluster(f"127.0.0.1:{port}", num_cpus, temp_dir, log, process.pid)
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)


@contextmanager
def connected(address: str) -> Iterator[ModuleType]:
    """Connect this process to the cluster at `address` as a driver; disconnect on exit."""
    import ray

    ray.init(address=address, log_to_driver=False, configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@contextmanager
def local_ray(num_cpus: int = 1) -> Iterator[ModuleType]:
    """Start a private Ray instance inside this process (`ray.init`), shut it down on exit.

    `address="local"` forces a new instance: a bare `ray.init()` would join any cluster named by
    RAY_ADDRESS or /tmp/ray/ray_current_cluster (another test run's, or another user's).
    """
    require_module("ray", INSTALL)
    configure_environment()
    import ray

    temp_dir = tempfile.mkdtemp(prefix="rc-ray-", dir="/tmp")
    ray.init(
        address="local",
        num_cpus=num_cpus,
        num_gpus=0,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        _temp_dir=temp_dir,
    )
    try:
        yield ray
    finally:
        ray.shutdown()
        shutil.rmtree(temp_dir, ignore_errors=True)
