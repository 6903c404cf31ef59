"""One contestant in its own process: the harness sends commands, the worker times and checks.

Each contestant runs in a separate Python process that imports only its own library, so no
contestant pays for another's imports (a full garbage collection walks every live object) and
peak memory can be read per contestant. The harness talks to the worker over stdin/stdout, one
JSON object per line, and alternates between workers (round-robin), so slow drifts of the
machine spread over every contestant alike.

Commands: ``{"op": "check"}`` runs once on the whole text, measuring the peak resident memory
above the level before the run (``VmHWM`` reset through ``/proc/self/clear_refs``: native
allocations of Rust/C cores count too, which tracemalloc would miss), then checks offsets, sizes
and loss; ``{"op": "time"}`` runs once and returns the wall time; ``{"op": "quit"}`` ends it.
Before the first command the worker warms up on the first 5,000 characters: enough to load
lazy imports, tokenizers and compiled patterns, small enough not to pre-grow the heap.

Usage (by the harness): ``python -m benchmarks.worker NAME TEXT_PATH``.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Any

from benchmarks import checks
from benchmarks.contestants import SIZE, Contestant, all_contestants, measure_for

WARM_UP_CHARS = 5_000


def _status(field: str) -> int | None:
    """Return a ``/proc/self/status`` memory field in bytes, or None off Linux."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def timed_run(contestant: Contestant, text: str) -> tuple[float, float, Any]:
    """Prepare (untimed), collect garbage, then time one run.

    Returns:
        Wall seconds, CPU seconds of this process (all its threads), and the output.
    """
    run = contestant.prepare()
    gc.collect()
    cpu = time.process_time()
    start = time.perf_counter()
    output = run(text)
    return time.perf_counter() - start, time.process_time() - cpu, output


def check(contestant: Contestant, text: str) -> dict[str, Any]:
    """Run once, measuring peak memory, and check the output; return the findings."""
    before = _status("VmRSS")
    peak_known = _reset_peak() and before is not None
    seconds, cpu_seconds, output = timed_run(contestant, text)
    peak = _status("VmHWM") if peak_known else None
    result: dict[str, Any] = {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "peak_rss_bytes": None if peak is None or before is None else max(0, peak - before),
    }
    result.update(verdict(contestant, text, output))
    return result


def verdict(contestant: Contestant, text: str, output: Any) -> dict[str, Any]:
    """Return the correctness findings for one output (see ``benchmarks.checks``)."""
    if contestant.offsets is None:
        return {"chunks": None, "offsets": None, "over": None, "largest": None, "lost": None}
    pieces = contestant.pieces(output)
    offsets = checks.check_offsets(text, pieces, contestant.offsets)
    sizes = checks.count_over(pieces, SIZE, measure_for(contestant.unit))
    lost = None
    if contestant.offsets == "span" and offsets.is_exact:
        lost = checks.count_lost(text, pieces)
    return {
        "chunks": len(pieces),
        "offsets": {
            "mode": offsets.mode,
            "exact": offsets.exact,
            "total": offsets.total,
            "verdict": offsets.describe(),
        },
        "over": sizes.over,
        "largest": sizes.largest,
        "lost": lost,
    }


def _find(name: str) -> Contestant:
    contestants, _ = all_contestants()
    for contestant in contestants:
        if contestant.name == name:
            return contestant
    raise SystemExit(f"unknown contestant {name!r}")


def serve(name: str, path: Path, reply: IO[str], commands: IO[str]) -> None:
    """Answer commands for contestant ``name`` on the text at ``path`` until ``quit``."""
    contestant = _find(name)
    text = path.read_text(encoding="utf-8")
    start = time.perf_counter()
    contestant.prepare()(text[:WARM_UP_CHARS])
    _send(reply, {"ready": True, "warm_up_seconds": time.perf_counter() - start})
    for line in commands:
        op = json.loads(line)["op"]
        if op == "quit":
            return
        if op == "check":
            _send(reply, check(contestant, text))
        elif op == "time":
            seconds, cpu_seconds, output = timed_run(contestant, text)
            del output
            _send(reply, {"seconds": seconds, "cpu_seconds": cpu_seconds})
        else:
            _send(reply, {"error": f"unknown op {op!r}"})


def _send(reply: IO[str], message: dict[str, Any]) -> None:
    reply.write(json.dumps(message) + "\n")
    reply.flush()


def main() -> None:
    name, path = sys.argv[1], Path(sys.argv[2])
    # Libraries may print: keep the protocol on a private copy of stdout, send fd 1 to stderr.
    reply = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    try:
        serve(name, path, reply, sys.stdin)
    except Exception as exc:  # noqa: BLE001 - reported to the harness, which skips the contestant
        _send(reply, {"error": f"{type(exc).__name__}: {exc}"})


if __name__ == "__main__":
    main()
