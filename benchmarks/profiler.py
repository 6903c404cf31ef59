"""Profile ragchunk's hot paths with py-spy and write short text summaries.

``python benchmarks/profiler.py [TARGET ...]`` samples each target with ``py-spy record`` (raw
collapsed stacks, kept in the git-ignored ``benchmarks/profiles/raw/``; speedscope.app and
flamegraph.pl read them) and writes ``benchmarks/profiles/<target>.txt``: the share of samples
per function (inclusive and self), per ragchunk function including the library code it calls,
and the hottest lines. Start-up targets use ``python -X importtime`` instead (a sampling
profiler sees little of a 0.3 s process): the modules that cost the most to import.

Targets: recursive-chars, fixed-chars, token, recursive-tokens, cli (the whole
``ragchunk split corpus_10mb.txt > out.jsonl``), help and split-small (start-up); plus
``sentence-tokens`` and ``sentence-chars`` when a sentence strategy is registered.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import CORPUS_DIR, ensure
from benchmarks.rounds import user_env

HERE: Final = Path(__file__).resolve().parent
PROFILES: Final = HERE / "profiles"
RAW: Final = PROFILES / "raw"
RATE: Final = 250
IN_PROCESS: Final = {
    "recursive-chars": ("recursive", "chars"),
    "fixed-chars": ("fixed", "chars"),
    "token": ("token", "tokens"),
    "recursive-tokens": ("recursive", "tokens"),
    "sentence-chars": ("sentence", "chars"),
    "sentence-tokens": ("sentence", "tokens"),
}
START_UP: Final = {
    "help": ["--help"],
    "split-small": ["split", str(CORPUS_DIR / "small.txt")],
}
MARKER: Final = "profiled_runs"
_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>.*?)(?::(?P<line>\d+))?\)$")


def profiled_runs(strategy: str, unit: str, text: str, runs: int) -> None:
    """The sampled work: chunk ``text`` ``runs`` times (stacks are kept only under this)."""
    from ragchunk import chunk_text

    for _ in range(runs):
        chunk_text(text, strategy=strategy, size=512, overlap=50, unit=unit)  # type: ignore[arg-type]


def _inner(strategy: str, unit: str, path: Path, runs: int) -> None:
    from ragchunk import chunk_text

    chunk_text("warm up " * 100, strategy=strategy, size=512, overlap=50, unit=unit)  # type: ignore[arg-type]
    profiled_runs(strategy, unit, path.read_text(encoding="utf-8"), runs)


def _py_spy() -> str:
    found = Path(sys.executable).with_name("py-spy")
    if found.exists():
        return str(found)
    which = shutil.which("py-spy")
    if which is None:
        raise SystemExit("py-spy is not installed: pip install -e '.[bench]'")
    return which


def record(name: str, command: list[str], stdout: Path | None = None) -> Path:
    """Sample ``command`` with py-spy; return the raw collapsed-stacks file."""
    RAW.mkdir(parents=True, exist_ok=True)
    raw = RAW / f"{name}.txt"
    argv = [_py_spy(), "record", "--rate", str(RATE), "-f", "raw", "-o", str(raw), "--", *command]
    with (stdout or Path("/dev/null")).open("wb") as out:
        subprocess.run(argv, stdout=out, check=True, env=user_env())
    return raw


def _parse(frame: str) -> tuple[str, str, str]:
    match = _FRAME.match(frame)
    if not match:
        return frame, "", ""
    return match["func"], match["file"], match["line"] or ""


def summarise(raw: Path, title: str, *, only_under: str | None, top: int = 25) -> str:
    """Return the text summary of a raw py-spy profile."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    attributed: Counter[str] = Counter()
    total = 0
    for row in raw.read_text().splitlines():
        stack, _, count_text = row.rpartition(" ")
        frames = [_parse(f) for f in stack.split(";")]
        if only_under and not any(func == only_under for func, _, _ in frames):
            continue
        count = int(count_text)
        total += count
        for key in {f"{func} ({file})" for func, file, _ in frames}:
            inclusive[key] += count
        func, file, line = frames[-1]
        own[f"{func} ({file})"] += count
        lines[f"{file}:{line} in {func}"] += count
        ours = [f for f in frames if f[1].startswith("ragchunk/")]
        if ours:
            attributed[f"{ours[-1][0]} ({ours[-1][1]})"] += count
    return _render(title, total, inclusive, own, attributed, lines, top)


def _render(
    title: str,
    total: int,
    inclusive: Counter[str],
    own: Counter[str],
    attributed: Counter[str],
    lines: Counter[str],
    top: int,
) -> str:
    def block(heading: str, counter: Counter[str], n: int) -> list[str]:
        out = ["", heading]
        out += [f"{100 * c / total:6.1f} %  {key}" for key, c in counter.most_common(n)]
        return out

    text = [title, f"{total:,} samples at {RATE} Hz"]
    text += block("Inclusive (in the function or anything it calls):", inclusive, top)
    text += block("Self (in the function's own code; native calls count here):", own, top)
    text += block(
        "By ragchunk function (its own code plus the stdlib/library code it calls):",
        attributed,
        top,
    )
    text += block("Hottest lines (self):", lines, 15)
    return "\n".join(text) + "\n"


def _version() -> str:
    result = subprocess.run([_py_spy(), "--version"], capture_output=True, text=True, check=False)
    return result.stdout.strip()


def profile_in_process(target: str, path: Path, runs: int) -> str:
    strategy, unit = IN_PROCESS[target]
    command = [sys.executable, __file__, "--inner", strategy, unit, str(path), str(runs)]
    start = time.perf_counter()
    raw = record(target, command)
    seconds = time.perf_counter() - start
    title = (
        f"ragchunk {strategy} ({unit}), 512/50, {runs} runs on {path.name} "
        f"(chunk_text in process); {_version()}; sampled run took {seconds:.0f} s"
    )
    return summarise(raw, title, only_under=MARKER)


def profile_cli(path: Path) -> str:
    ragchunk = str(Path(sys.executable).with_name("ragchunk"))
    out = RAW / "cli-out.jsonl"
    RAW.mkdir(parents=True, exist_ok=True)
    raw = record("cli", [ragchunk, "split", str(path)], stdout=out)
    # py-spy prints its own messages to the same stdout: count the JSON lines only.
    records = sum(line.startswith("{") for line in out.open(encoding="utf-8"))
    title = (
        f"ragchunk split {path.name} > out.jsonl (whole process, recursive 512/50; "
        f"{records:,} records); {_version()}"
    )
    return summarise(raw, title, only_under=None)


def profile_start_up(target: str) -> str:
    """Summarise ``-X importtime`` for a start-up command as an import tree (≥ 5 ms)."""
    argv = ["ragchunk", *START_UP[target]]
    code = f"import sys; sys.argv = {argv!r}; from ragchunk.cli import main; main()"
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env=user_env(),
    )
    roots = _import_tree(result.stderr)
    total = sum(node[1] for node in _walk(roots))
    text = [
        f"python -X importtime: {' '.join(argv)}",
        f"total import time (sum of self times): {total / 1e3:.0f} ms",
        "",
        "cumulative ms  self ms  module (children indented under their importer; >= 5 ms only)",
    ]
    text += _render_tree(roots, depth=0)
    heavy = sorted({name.split(".")[0] for name, _, _, _ in _walk(roots)} & _HEAVY)
    text += ["", "Heavy top-level packages imported: " + (", ".join(heavy) or "none")]
    return "\n".join(text) + "\n"


Node = tuple[str, int, int, list["Node"]]  # name, self µs, cumulative µs, children


def _import_tree(stderr: str) -> list[Node]:
    """Rebuild the import tree: -X importtime prints a module after the modules it imports."""
    waiting: dict[int, list[Node]] = {}
    for line in stderr.splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not parts[0].startswith("import time:"):
            continue
        if not parts[1].strip().isdigit():
            continue
        name = parts[2].rstrip()
        level = (len(name) - len(name.lstrip())) // 2
        children = waiting.pop(level + 1, [])
        node: Node = (name.strip(), int(parts[0].split(":")[1]), int(parts[1]), children)
        waiting.setdefault(level, []).append(node)
    return waiting.get(0, [])


def _walk(nodes: list[Node]) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        out.append(node)
        out += _walk(node[3])
    return out


def _render_tree(nodes: list[Node], depth: int) -> list[str]:
    lines = []
    for name, own, cumulative, children in sorted(nodes, key=lambda n: -n[2]):
        if cumulative < 5_000 or depth > 5:
            continue
        lines.append(f"{cumulative / 1e3:12.1f}  {own / 1e3:7.1f}  {'  ' * depth}{name}")
        lines += _render_tree(children, depth + 1)
    return lines


_HEAVY: Final = {
    "rich",
    "typer",
    "click",
    "tiktoken",
    "tiktoken_ext",
    "regex",
    "markdown_it",
    "pypdf",
    "docx",
    "tree_sitter",
    "numpy",
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--inner":
        _inner(args[1], args[2], Path(args[3]), int(args[4]))
        return 0
    parser = argparse.ArgumentParser(description="Profile ragchunk's hot paths (py-spy).")
    parser.add_argument("targets", nargs="*", help="targets (default: all available)")
    parser.add_argument("--size", default="10mb", help="corpus size to profile on")
    parser.add_argument(
        "--runs",
        type=int,
        default=0,
        help="in-process runs per target (0: 10 in chars, 3 in tokens)",
    )
    options = parser.parse_args(args)
    ensure()
    from ragchunk import strategies

    available = [t for t in IN_PROCESS if IN_PROCESS[t][0] in strategies.names()] + [
        "cli",
        *START_UP,
    ]
    path = CORPUS_DIR / f"corpus_{options.size}.txt"
    PROFILES.mkdir(exist_ok=True)
    for target in options.targets or available:
        if target not in available:
            raise SystemExit(f"unknown or unavailable target {target!r}: {', '.join(available)}")
        print(f"profiling {target} …", file=sys.stderr, flush=True)
        if target == "cli":
            summary = profile_cli(path)
        elif target in START_UP:
            summary = profile_start_up(target)
        else:
            runs = options.runs or (10 if IN_PROCESS[target][1] == "chars" else 3)
            summary = profile_in_process(target, path, runs)
        (PROFILES / f"{target}.txt").write_text(summary, encoding="utf-8")
        print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
