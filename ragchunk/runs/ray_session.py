"""The Ray session of a run: the cluster joined or started, Ray Data's options, quiet logs.

``connected`` joins the cluster an address names (one where nothing answers fails in seconds,
not after Ray's minutes of retries) or starts a local one of the run's own, on 127.0.0.1
only, and leaves it afterwards; a session already open in this process is used as it is.
``execution_options`` sets what a run needs of Ray Data (order kept, failed blocks dropped,
progress bars) and puts the caller's settings back.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from typing import Any, Final

from ragchunk.errors import OptionError, UsageError
from ragchunk.pipeline.results import first_line

JOIN_TIMEOUT: Final = 10.0
"""Seconds to wait for a cluster's address to answer before giving up on joining it."""
_SINGLE_NODE: Final = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextlib.contextmanager
def connected(address: str | None, workers: int | None) -> Iterator[None]:
    """Join or start the cluster for the block; leave it (stop a local one) afterwards.

    Raises:
        UsageError: it cannot be started or reached.
    """
    if _starts_local(address) and "ray" not in sys.modules:
        # Ray's single-node mode, read when ray is imported: every socket of the cluster
        # listens on 127.0.0.1 (otherwise its GCS and raylet listen on every interface).
        os.environ.setdefault(_SINGLE_NODE, "0")
    import ray

    started = _connect(address, workers)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def _connect(address: str | None, workers: int | None) -> bool:
    """Join or start the cluster; return whether this call started Ray (and must stop it).

    Without an address, the cluster named by ``RAY_ADDRESS`` is joined (as in a job that
    ``ray job submit`` started), else a new local one is started: never one that happens to
    run on the machine.

    Raises:
        UsageError: it cannot be started or reached.
    """
    import ray

    if ray.is_initialized():
        return False
    if _starts_local(address):
        # A local cluster of this run's own, on the loopback interface, without a dashboard.
        options: dict[str, Any] = {
            "address": "local",
            "num_cpus": workers,
            "include_dashboard": False,
            "_node_ip_address": "127.0.0.1",
        }
    else:
        options = {"address": address}
        joined = address or os.environ["RAY_ADDRESS"]
        if (reason := _unreachable(joined)) is not None:
            raise _join_error(address, f"{joined}: cannot join ({reason})")
    try:
        ray.init(logging_level=logging.ERROR, **options)
    except (ConnectionError, RuntimeError, ValueError, OSError, TimeoutError) as exc:
        reason = first_line(str(exc)) or type(exc).__name__
        if _starts_local(address):
            raise UsageError(f"cannot start a local Ray cluster ({reason})") from None
        joined = address or os.environ["RAY_ADDRESS"]
        raise _join_error(address, f"{joined}: cannot join ({reason})") from None
    return True


def _join_error(address: str | None, message: str) -> UsageError:
    """Name the flag, or the environment variable, that gave the address."""
    if address is not None:
        return OptionError("--ray-address", message)
    return UsageError(f"RAY_ADDRESS {message}")


def _unreachable(address: str) -> str | None:
    """Return why nothing answers at ``HOST:PORT`` (or ``ray://HOST:PORT``), else None.

    Ray itself keeps trying an address where nothing listens, for minutes; other forms
    (``auto``) are left to Ray, which fails fast on them.
    """
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or not host:
        return None
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=JOIN_TIMEOUT):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def _starts_local(address: str | None) -> bool:
    """Return whether ``run_jobs`` starts a local cluster (no address, no ``RAY_ADDRESS``)."""
    return address is None and not os.environ.get("RAY_ADDRESS")


@contextlib.contextmanager
def execution_options(*, progress: bool, debug: bool) -> Iterator[None]:
    """Set Ray Data's options for one run, and put them back afterwards.

    Order is preserved (the output is the same as a local run's, byte for byte); a block whose
    task failed for good is dropped instead of stopping the run (``run_jobs`` runs its inputs
    again), except with ``--debug``, where the failure stops the run; progress bars only when
    asked.
    """
    from ray.data import DataContext

    context = DataContext.get_current()
    saved = (
        context.execution_options.preserve_order,
        context.max_errored_blocks,
        context.enable_progress_bars,
        context.print_on_execution_start,
        context.use_ray_tqdm,
        context.enable_rich_progress_bars,
    )
    context.execution_options.preserve_order = True
    context.max_errored_blocks = 0 if debug else -1
    context.enable_progress_bars = progress
    context.print_on_execution_start = False
    # The bars are drawn here, in the driver, by rich on stderr (Ray Data's own choice, too,
    # needs stdout to be a terminal).
    context.use_ray_tqdm = False
    context.enable_rich_progress_bars = True
    try:
        yield
    finally:
        (
            context.execution_options.preserve_order,
            context.max_errored_blocks,
            context.enable_progress_bars,
            context.print_on_execution_start,
            context.use_ray_tqdm,
            context.enable_rich_progress_bars,
        ) = saved


@contextlib.contextmanager
def logs_quiet() -> Iterator[None]:
    """Keep Ray Data's informational lines off the terminal during a run.

    They still go to the session's log files; its warnings about a failed task are replaced
    by the failures of the inputs concerned.
    """
    import ray.data  # noqa: F401 - sets up Ray Data's loggers, which this then quiets

    logger = logging.getLogger("ray.data")
    consoles = [
        handler
        for handler in logger.handlers
        if isinstance(handler, logging.StreamHandler)
        and not isinstance(handler, logging.FileHandler)
    ]
    levels = [handler.level for handler in consoles]
    for handler in consoles:
        handler.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for handler, level in zip(consoles, levels, strict=True):
            handler.setLevel(level)
