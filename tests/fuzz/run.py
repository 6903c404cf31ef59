"""Coverage-guided fuzzing of every parser and of the markdown strategy, with atheris.

    python tests/fuzz/run.py --seconds 60                  # each target for 60 s, one by one
    python tests/fuzz/run.py --seconds 600 --targets pdf,docx

Each target (``targets.TARGETS``) runs in a process of its own under libFuzzer, with ragchunk,
pypdf, python-docx and markdown-it-py instrumented for coverage. It starts from the fixtures and
``seeds/<target>/`` and keeps what it learns in ``corpus/<target>/`` (git-ignored). An input that
breaks a property (any exception but ``InputError``, a hang past ``-timeout``, a violation of
SPEC §3, more than 2 GB of memory) stops the target and is written to ``crashes/<target>/``
(git-ignored); fix the bug, then move the file to ``regressions/<target>/``, where
``test_fuzz.py`` replays it in every test run. Exit code: 0 when every target ran clean.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


LIBRARIES = {
    "pdf": ["pypdf"],
    "pdf-content": ["pypdf"],
    "docx": ["docx"],
    "docx-body": ["docx"],
    "markdown": ["markdown_it"],
    "markdown-strategy": ["markdown_it"],
}
"""Third-party packages instrumented besides ragchunk, per target (instrumenting costs seconds)."""

UNREACHED = ("ragchunk.__main__", "ragchunk.cli", "ragchunk.runs.config", "ragchunk.runs.inputs")
"""Modules no target calls (the command line and the batch walk): left uninstrumented."""


def _modules(path: list[str], prefix: str) -> Iterator[str]:
    """Name the modules under ``path``, depth first, skipping ``UNREACHED`` without importing."""
    import pkgutil

    for info in pkgutil.iter_modules(path, prefix):
        if info.name.startswith(UNREACHED):
            continue
        yield info.name
        if info.ispkg:
            yield from _modules([str(Path(path[0], info.name.rpartition(".")[2]))], f"{info.name}.")


def fuzz(target: str, seconds: int, base: Path) -> int:
    """Run one target under libFuzzer in this process (never returns normally)."""
    import importlib

    import atheris

    sys.path.insert(0, str(ROOT))
    libraries = LIBRARIES.get(target, [])
    with atheris.instrument_imports(include=["ragchunk", *libraries]):
        import ragchunk

        # Every module now, inside the block: parsers and strategies load lazily otherwise,
        # after it, uninstrumented.
        for name in _modules(ragchunk.__path__, "ragchunk."):
            importlib.import_module(name)
        for library in libraries:
            importlib.import_module(library)
        from tests.fuzz.targets import TARGETS
    chosen = TARGETS[target]
    corpus = base / "corpus" / target
    crashes = base / "crashes" / target
    corpus.mkdir(parents=True, exist_ok=True)
    crashes.mkdir(parents=True, exist_ok=True)
    for path in chosen.seed_files():  # libFuzzer starts from the files of its corpus directory
        copy = corpus / f"seed-{path.name}"
        if not copy.exists():
            copy.write_bytes(path.read_bytes())
    arguments = [
        sys.argv[0],
        str(corpus),
        f"-max_total_time={seconds}",
        "-timeout=20",
        "-rss_limit_mb=2048",
        "-max_len=65536",
        f"-artifact_prefix={crashes}/",
        "-print_final_stats=1",
    ]
    atheris.Setup(arguments, chosen.run)
    atheris.Fuzz()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description="Fuzz the parsers and the markdown strategy.")
    parser.add_argument("--seconds", type=int, default=60, help="per target")
    parser.add_argument("--targets", help="comma-separated (default: all)")
    parser.add_argument(
        "--dir", type=Path, default=HERE, help="where corpus/ and crashes/ go (default: here)"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return fuzz(args.worker, args.seconds, args.dir)
    sys.path.insert(0, str(ROOT))
    from tests.fuzz.targets import TARGETS

    names = args.targets.split(",") if args.targets else list(TARGETS)
    unknown = sorted(set(names) - set(TARGETS))
    if unknown:
        parser.error(f"unknown targets {', '.join(unknown)} (known: {', '.join(TARGETS)})")
    failed = []
    for name in names:
        sys.stdout.write(f"== {name}: {args.seconds} s\n")
        sys.stdout.flush()
        command = [sys.executable, __file__, "--worker", name, "--seconds", str(args.seconds)]
        command += ["--dir", str(args.dir)]
        if subprocess.run(command, cwd=ROOT, check=False).returncode != 0:
            failed.append(name)
    sys.stdout.write(f"failed: {', '.join(failed)}\n" if failed else "all targets ran clean\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
