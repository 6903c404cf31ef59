"""``--engine ray`` against ``--jobs``: what Ray costs per file, and how it scales with workers.

    python benchmarks/ray_engine.py                      # ~15 min on 2 cores
    python benchmarks/ray_engine.py --repeat 1 --workers 1,2 --update-readme

Needs ``ragchunk[ray]``. Prints Markdown tables, writes ``benchmarks/results/ray.json`` and,
with ``--update-readme``, the Ray section of ``benchmarks/README.md``. Input: ``files_1000/``
of the benchmark corpus (10 MB of prose and Markdown as 1,000 files; built on first use).

1. **Whole CLI**, round-robin, each with the same number of worker processes: ``--jobs N``;
   ``--engine ray -j N``, which starts a local cluster of N CPUs and stops it (start-up
   included); ``--engine ray --ray-address``, joining a cluster of N CPUs started beforehand
   (no cluster start-up, but a new job: its workers start cold). The same three on one small
   file measure the fixed cost. Overhead per file = (joined cluster - ``--jobs``) / 1,000.
2. **Serialisation**, in this process: the 1,000 results turned into the outcome rows a Ray
   task returns and back (``_encode``/``_decode``), per file, for JSONL and for Parquet.
3. **Scaling**: a driver joined to a cluster of N CPUs (N in ``--workers``) runs the 1,000 jobs
   after a warm-up run (workers warm, as in a long run): (a) the real chunking, CPU-bound,
   so it cannot scale past this machine's cores; (b) a simulation where each file's work is a
   ``--sleep`` of wall time instead of CPU (as if each worker had a core of its own), which
   shows what Ray's scheduling and the driver allow as workers are added.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpus, ray_sleeper
from benchmarks.rounds import measure_processes
from benchmarks.suites import ragchunk_command

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "ray.json"
README = HERE / "README.md"
START, END = "<!-- ray:start -->", "<!-- ray:end -->"
RAY_ENV = {
    # One machine: every Ray socket on 127.0.0.1; no usage report; a quick stop.
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0",
    "RAY_AUTH_MODE": "token",
}


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per measurement")
    parser.add_argument("--jobs", type=int, default=2, help="workers for part 1")
    parser.add_argument("--workers", default="1,2,4", help="worker counts for part 3")
    parser.add_argument("--sleep", type=float, default=0.05, help="simulated seconds per file")
    parser.add_argument("--update-readme", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    os.environ.update(RAY_ENV)
    os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(32))
    corpus.ensure()
    results: dict[str, Any] = {"machine": _machine(), "args": vars(args)}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rc-bench-", dir="/tmp") as tmp:
        # Outside the repository: a walk honouring .gitignore would skip the ignored corpus.
        files = Path(tmp, "files_1000")
        shutil.copytree(corpus.CORPUS_DIR / "files_1000", files)
        results["cli"] = whole_cli(files, Path(tmp), jobs=args.jobs, repeat=args.repeat)
        results["serialisation"] = serialisation(files)
        counts = [int(n) for n in args.workers.split(",")]
        results["scaling"] = scaling(files, Path(tmp), counts, args.repeat, args.sleep)
    results["machine"]["load_average_at_end"] = os.getloadavg()
    results["minutes"] = round((time.monotonic() - started) / 60, 1)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    text = render(results)
    sys.stdout.write(text + "\n")
    if args.update_readme:
        _update_readme(text)
    return 0


def _machine() -> dict[str, Any]:
    import ray

    return {
        "cpus": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "ray": ray.__version__,
        "load_average_at_start": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d"),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def ray_head(tmp: Path, cpus: int) -> Iterator[str]:
    """Start ``ray start --head`` with ``cpus`` CPUs on 127.0.0.1; yield its address; stop it."""
    port = _free_port()
    temp_dir = Path(tempfile.mkdtemp(prefix="rc-", dir="/tmp"))  # short: socket paths
    log = (tmp / f"head-{cpus}.log").open("w")
    ray = str(Path(sys.executable).with_name("ray"))
    command = [ray, "start", "--head", "--block", "--node-ip-address=127.0.0.1"]
    command += [f"--port={port}", f"--num-cpus={cpus}", "--num-gpus=0"]
    command += ["--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp_dir}"]
    head = subprocess.Popen(command, stdout=log, stderr=log, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while "Ray runtime started" not in (tmp / f"head-{cpus}.log").read_text(errors="replace"):
            if time.monotonic() > deadline or head.poll() is not None:
                raise RuntimeError(f"the Ray head did not start; see {tmp}/head-{cpus}.log")
            time.sleep(0.5)
        yield f"127.0.0.1:{port}"
    finally:
        head.terminate()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, 9)  # whatever of the cluster is left (its own session)
        log.close()
        shutil.rmtree(temp_dir, ignore_errors=True)


def whole_cli(files: Path, tmp: Path, *, jobs: int, repeat: int) -> dict[str, Any]:
    """Part 1: the three ways to run the 1,000 files, and the same on one small file."""
    split = [*ragchunk_command(), "split"]
    small = sorted(files.iterdir())[0]
    with ray_head(tmp, jobs) as address:
        joined = ["--engine", "ray", "--ray-address", address]
        commands = {
            f"1,000 files, --jobs {jobs}": [*split, str(files), "-j", str(jobs)],
            f"1,000 files, --engine ray -j {jobs} (own local cluster)": [
                *split,
                str(files),
                "--engine",
                "ray",
                "-j",
                str(jobs),
            ],
            f"1,000 files, --engine ray (joined {jobs}-CPU cluster)": [*split, str(files), *joined],
            f"1 file, --jobs {jobs}": [*split, str(small), "-j", str(jobs)],
            f"1 file, --engine ray -j {jobs} (own local cluster)": [
                *split,
                str(small),
                "--engine",
                "ray",
                "-j",
                str(jobs),
            ],
            f"1 file, --engine ray (joined {jobs}-CPU cluster)": [*split, str(small), *joined],
        }
        outputs: dict[str, Path | None] = {
            name: tmp / f"cli-{k}.jsonl" for k, name in enumerate(commands)
        }
        with (tmp / "cli.log").open("w") as log:
            measured = measure_processes(
                commands,
                outputs=outputs,
                repeat=repeat,
                warmup=1,
                log=log,
                progress=lambda message: sys.stderr.write(f"{message}\n"),
            )
    rows = []
    for name, measurement in measured.items():
        summary = measurement.summary(1)
        out = outputs[name]
        rows.append(
            {
                "name": name,
                "runs": summary["n"],
                "median": summary["median"],
                "min": summary["min"],
                "max": summary["max"],
                "cpu": summary["cpu_median"],
                "records": sum(1 for _ in out.open()) if out and out.exists() else None,
                "error": measurement.error,
            }
        )
    identical = len({outputs[n].read_bytes() for n in commands if n.startswith("1,000")}) == 1
    return {"jobs": jobs, "rows": rows, "outputs_identical": identical}


def _jobs(files: Path, *, render: bool) -> list[Any]:
    from ragchunk.pipeline.scopes import plan_from_settings
    from ragchunk.runs.inputs import find_inputs
    from ragchunk.runs.workers import Job
    from ragchunk.settings import scope
    from ragchunk.sinks.jsonl import encode

    plan = plan_from_settings(scope({}))  # the command line's defaults
    found = find_inputs([str(files)]).inputs
    return [Job(i.source, i.doc_id, plan, render=encode if render else None) for i in found]


def serialisation(files: Path) -> dict[str, Any]:
    """Part 2: results → outcome rows (in the task) → results (in the driver), per file."""
    from ragchunk.runs import ray_jobs as integration
    from ragchunk.runs import worker

    out: dict[str, Any] = {}
    for kind, render in (("jsonl", True), ("parquet", False)):
        jobs = _jobs(files, render=render)
        began = time.perf_counter()
        results = [worker.work(job) for job in jobs]
        chunking = time.perf_counter() - began
        per = integration.FILES_PER_TASK
        list(integration._decode(integration._encode([0], results[:1]), jobs))  # imports, once
        encode = decode = 0.0
        nbytes = 0
        for start in range(0, len(results), per):
            chosen = results[start : start + per]
            t0 = time.perf_counter()
            block = integration._encode(list(range(start, start + len(chosen))), chosen)
            t1 = time.perf_counter()
            list(integration._decode(block, jobs))
            t2 = time.perf_counter()
            encode, decode, nbytes = encode + t1 - t0, decode + t2 - t1, nbytes + block.nbytes
        n = len(results)
        out[kind] = {
            "files": n,
            "chunking_ms_per_file": 1000 * chunking / n,
            "encode_us_per_file": 1e6 * encode / n,
            "decode_us_per_file": 1e6 * decode / n,
            "bytes_per_file": nbytes / n,
        }
    return out


def scaling(files: Path, tmp: Path, counts: list[int], repeat: int, sleep: float) -> dict[str, Any]:
    """Part 3: steady throughput of a warm driver with N worker CPUs, real and simulated."""
    import ray

    from ragchunk.integrations.ray import run_jobs

    jobs = _jobs(files, render=True)
    slow = [dataclasses.replace(job, plan=ray_sleeper.sleeping(job.plan, sleep)) for job in jobs]
    rows = []
    for count in counts:
        with ray_head(tmp, count) as address:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
            ray.cloudpickle.register_pickle_by_value(ray_sleeper)
            try:
                for name, chosen in (("chunking (CPU-bound)", jobs), ("simulated", slow)):
                    consume(run_jobs(chosen))  # warm-up: workers start, import ragchunk
                    times = []
                    for _ in range(repeat):
                        began = time.perf_counter()
                        consume(run_jobs(chosen))
                        times.append(time.perf_counter() - began)
                    median = statistics.median(times)
                    rows.append(
                        {
                            "workers": count,
                            "workload": name,
                            "median": median,
                            "files_per_s": len(jobs) / median,
                        }
                    )
                    sys.stderr.write(f"{count} workers, {name}: {median:.2f} s\n")
            finally:
                ray.shutdown()
    return {"sleep": sleep, "rows": rows}


def consume(results: Any) -> None:
    for result in results:
        if result.error is not None:
            raise RuntimeError(result.error)


def render(results: dict[str, Any]) -> str:
    machine, cli = results["machine"], results["cli"]
    jobs = cli["jobs"]
    lines = [
        f"Run of {machine['date']}: {machine['cpus']} cores (shared with other sessions; load "
        f"average {machine['load_average_at_start'][0]:.1f} at the start, "
        f"{machine['load_average_at_end'][0]:.1f} at the end), Python {machine['python']}, "
        f"Ray {machine['ray']}; {results['args']['repeat']} timed runs each, medians; took "
        f"{results['minutes']} min.",
        "",
        f"#### 10 MB as 1,000 files, {jobs} workers each",
        "",
        "| command | runs | median | min – max | CPU of the command | records |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in cli["rows"]:
        if row["error"]:
            lines.append(f"| {row['name']} | 0 | failed: {row['error']} | | | |")
            continue
        lines.append(
            f"| {row['name']} | {row['runs']} | {row['median']:.2f} s | {row['min']:.2f} – "
            f"{row['max']:.2f} s | {row['cpu']:.2f} s | {row['records']:,} |"
        )
    by_name = {row["name"]: row for row in cli["rows"]}
    local = by_name[f"1,000 files, --jobs {jobs}"]["median"]
    joined = by_name[f"1,000 files, --engine ray (joined {jobs}-CPU cluster)"]["median"]
    own = by_name[f"1,000 files, --engine ray -j {jobs} (own local cluster)"]["median"]
    fixed_own = by_name[f"1 file, --engine ray -j {jobs} (own local cluster)"]["median"]
    fixed_joined = by_name[f"1 file, --engine ray (joined {jobs}-CPU cluster)"]["median"]
    fixed_local = by_name[f"1 file, --jobs {jobs}"]["median"]
    lines += [
        "",
        f"Output identical across the three 1,000-file runs: {cli['outputs_identical']}. "
        f"Fixed cost (one small file): {fixed_own - fixed_local:.1f} s more than `--jobs` to "
        f"start and stop a local cluster, {fixed_joined - fixed_local:.1f} s to join a running "
        f"one. Per file, on the joined cluster: {1000 * (joined - local) / 1000:.1f} ms more "
        f"than `--jobs {jobs}` ({1000 * (joined - fixed_joined - (local - fixed_local)) / 1000:.1f}"
        f" ms once the fixed costs are taken out of both); with its own cluster "
        f"{1000 * (own - local) / 1000:.1f} ms per file, start-up included.",
        "",
        "#### Serialisation between Ray's tasks and the driver, per file",
        "",
        "| output | chunking (for scale) | encode (task) | decode (driver) | Arrow bytes |",
        "| --- | --- | --- | --- | --- |",
    ]
    for kind, row in results["serialisation"].items():
        lines.append(
            f"| {kind} | {row['chunking_ms_per_file']:.2f} ms | {row['encode_us_per_file']:.0f} µs"
            f" | {row['decode_us_per_file']:.0f} µs | {row['bytes_per_file']:,.0f} |"
        )
    scale = results["scaling"]
    lines += [
        "",
        f"#### Throughput by worker count (a warm driver joined to a cluster of N CPUs; this "
        f"machine has {machine['cpus']} cores)",
        "",
        f"The simulated workload replaces each file's chunking by a {1000 * scale['sleep']:.0f}"
        " ms sleep, which takes no CPU: it shows how Ray's scheduling and the driver keep up as"
        " workers are added, as on a cluster where each worker has a core of its own.",
        "",
        "| workers | workload | median (1,000 files) | files/s | × 1 worker |",
        "| --- | --- | --- | --- | --- |",
    ]
    base = {row["workload"]: row["files_per_s"] for row in scale["rows"] if row["workers"] == 1}
    for row in scale["rows"]:
        ratio = row["files_per_s"] / base[row["workload"]] if row["workload"] in base else None
        shown = "–" if ratio is None else f"{ratio:.2f}×"
        lines.append(
            f"| {row['workers']} | {row['workload']} | {row['median']:.2f} s | "
            f"{row['files_per_s']:.0f} | {shown} |"
        )
    return "\n".join(lines)


def _update_readme(text: str) -> None:
    readme = README.read_text(encoding="utf-8")
    before, _, rest = readme.partition(START)
    _, _, after = rest.partition(END)
    README.write_text(f"{before}{START}\n{text}\n{END}{after}", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
