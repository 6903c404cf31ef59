"""Build the benchmark corpus from real English text available offline on Debian.

Sources, each document cut into parts of at most 32,000 characters at blank lines outside
code fences:

- ``man``: man pages (sections 1-8) rendered to plain text by groff; the 16,000 generated
  ``gcloud_*`` pages are left out (near-duplicates of each other).
- ``markdown``: Markdown under /usr/share/doc (Node.js API documentation, READMEs); changelogs
  are left out (lists of commit titles, not prose).
- ``python-docs``: the running interpreter's ``pydoc_data.topics`` (the language reference).
- ``readme``: plain-text READMEs under /usr/share/doc.
- ``licence``: /usr/share/common-licenses.
- ``fixtures``: the repository's ``fixtures/text``.

The sources are merged by weight (next comes the source with the fewest bytes per unit of weight
so far), each in a fixed pseudo-random order, so every prefix has the same mix of prose and
Markdown. Written to ``benchmarks/corpus/`` (git-ignored):

- ``corpus_10mb.txt`` and its prefixes ``corpus_50kb.txt`` and ``corpus_1mb.txt``, each cut at a
  blank line, at most the named number of bytes (1 MB = 10^6 bytes);
- ``corpus_100mb.txt``: the parts of the 10 MB corpus again in ten other orders (the machine has
  no 100 MB of distinct prose that renders in reasonable time); for the scaling check only;
- ``files_1000/``: the 10 MB corpus as 1,000 files cut at blank lines;
- ``small.txt``: the first ~2 KB, for the CLI start-up check;
- ``manifest.json``: sizes, SHA-256 of every file and the mix, so results name their corpus.

The output depends only on the files installed on the machine image (and the Python and groff
versions, recorded in the manifest). ``python benchmarks/corpus.py [--force]`` builds it.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).resolve().parent
REPO: Final = HERE.parent
CORPUS_DIR: Final = HERE / "corpus"
VERSION: Final = 1
SEED: Final = "ragchunk-bench-1"

SIZES: Final = {"50kb": 50_000, "1mb": 1_000_000, "10mb": 10_000_000, "100mb": 100_000_000}
PART_LIMIT: Final = 32_000
FILE_COUNT: Final = 1_000
SMALL_BYTES: Final = 2_000
MIN_DOCUMENT: Final = 200

WEIGHTS: Final = {
    "man": 0.40,
    "markdown": 0.35,
    "python-docs": 0.08,
    "readme": 0.07,
    "licence": 0.05,
    "fixtures": 0.05,
}

DOC_ROOT: Final = Path("/usr/share/doc")
MAN_ROOT: Final = Path("/usr/share/man")
LICENCE_ROOT: Final = Path("/usr/share/common-licenses")
GROFF: Final = ["groff", "-k", "-t", "-Tutf8", "-man", "-rHY=0", "-P-cbou"]

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BLANK_RUNS = re.compile(r"\n{3,}")


def order(names: list[str], seed: str = SEED) -> list[str]:
    """Return ``names`` in a fixed pseudo-random order (a keyed hash, no global RNG state)."""

    def key(name: str) -> str:
        return hashlib.blake2b(f"{seed}\0{name}".encode(), digest_size=8).hexdigest()

    return sorted(names, key=key)


def clean(text: str) -> str:
    """Normalise line ends, drop control characters and trailing blanks, squeeze blank runs."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip("\n")


def split_parts(text: str, limit: int = PART_LIMIT) -> list[str]:
    """Cut ``text`` into parts of at most ``limit`` characters at blank lines outside fences.

    A block between two such blank lines that is itself longer than ``limit`` stays whole.
    """
    blocks: list[str] = []
    current: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        if not line and not fenced and current:
            blocks.append("\n".join(current))
            current = []
        elif line or current:
            current.append(line)
    if current:
        blocks.append("\n".join(current))
    parts: list[str] = []
    for block in blocks:
        if parts and len(parts[-1]) + 2 + len(block) <= limit:
            parts[-1] = f"{parts[-1]}\n\n{block}"
        else:
            parts.append(block)
    return parts


def _decode(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _read(path: Path) -> str | None:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return _decode(data)


def render_man(path: Path) -> str | None:
    """Render one compressed man page to plain text with groff, left-aligned, no hyphenation."""
    source = gzip.decompress(path.read_bytes())
    if source.lstrip().startswith(b".so "):  # a link to another page
        return None
    try:
        result = subprocess.run(
            GROFF,
            input=b".ad l\n" + source,
            capture_output=True,
            timeout=60,
            check=False,
            env={**os.environ, "LC_ALL": "C.UTF-8"},
        )
    except subprocess.TimeoutExpired:
        return None
    return _decode(result.stdout) if result.returncode == 0 else None


def _files(paths: list[Path], read: Callable[[Path], str | None]) -> Iterator[str]:
    by_name = {str(path): path for path in paths}
    for name in order(list(by_name)):
        text = read(by_name[name])
        if text is not None:
            yield text


def _man_pages() -> Iterator[str]:
    paths = [
        path
        for path in sorted(MAN_ROOT.glob("man[1-8]/*.gz"))
        if not path.name.startswith("gcloud")
    ]
    by_name = {str(path): path for path in paths}
    ordered = [by_name[name] for name in order(list(by_name))]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for start in range(0, len(ordered), 32):
            for text in pool.map(render_man, ordered[start : start + 32]):
                if text is not None:
                    yield text


def _is_changelog(path: Path) -> bool:
    return any("changelog" in part.lower() for part in path.parts)


def _markdown() -> Iterator[str]:
    paths = [
        path
        for pattern in ("*.md", "*.md.gz")
        for path in sorted(DOC_ROOT.rglob(pattern))
        if path.is_file() and not _is_changelog(path)
    ]
    return _files(paths, _read)


def _readmes() -> Iterator[str]:
    paths = [
        path
        for path in sorted(DOC_ROOT.glob("*/README*"))
        if path.is_file() and not re.search(r"\.(md|html|rst)(\.gz)?$", path.name)
    ]
    return _files(paths, _read)


def _licences() -> Iterator[str]:
    paths = [p for p in sorted(LICENCE_ROOT.iterdir()) if p.is_file() and not p.is_symlink()]
    return _files(paths, _read)


def _python_docs() -> Iterator[str]:
    from pydoc_data.topics import topics

    for key in order(sorted(topics)):
        yield topics[key]


def _fixtures() -> Iterator[str]:
    return _files(sorted((REPO / "fixtures" / "text").glob("*.txt")), _read)


SOURCES: Final[dict[str, Callable[[], Iterator[str]]]] = {
    "man": _man_pages,
    "markdown": _markdown,
    "python-docs": _python_docs,
    "readme": _readmes,
    "licence": _licences,
    "fixtures": _fixtures,
}


def _parts(documents: Iterator[str], seen: set[str]) -> Iterator[str]:
    """Yield the parts of every new (not yet seen), long enough document."""
    for raw in documents:
        text = clean(raw)
        digest = hashlib.sha256(text.encode()).hexdigest()
        if len(text) < MIN_DOCUMENT or digest in seen:
            continue
        seen.add(digest)
        yield from split_parts(text)


def merge(
    streams: dict[str, Iterator[str]], weights: dict[str, float], target_bytes: int
) -> tuple[list[str], dict[str, int]]:
    """Take parts from the streams by weight until ``target_bytes``; return them and the mix."""
    emitted = dict.fromkeys(streams, 0)
    active = dict(streams)
    parts: list[str] = []
    total = 0
    while active and total < target_bytes:
        name = min(active, key=lambda n: (emitted[n] / weights[n], n))
        part = next(active[name], None)
        if part is None:
            del active[name]
            continue
        size = len(part.encode()) + 2
        parts.append(part)
        emitted[name] += size
        total += size
    return parts, emitted


def cut(text: str, target_bytes: int) -> str:
    """Return the longest prefix of ``text`` of at most ``target_bytes`` ending at a blank line."""
    data = text.encode()
    if len(data) <= target_bytes:
        return text
    head = data[:target_bytes].decode("utf-8", errors="ignore")
    end = head.rfind("\n\n")
    return head[: end + 1] if end > 0 else head


def split_files(text: str, count: int) -> list[str]:
    """Cut ``text`` into ``count`` pieces of about equal length at blank lines."""
    pieces: list[str] = []
    start = 0
    for i in range(1, count):
        target = max(start + 1, len(text) * i // count)
        end = text.find("\n\n", target)
        if end < 0:
            break
        pieces.append(text[start : end + 1])
        start = end + 2
    pieces.append(text[start:])
    return pieces


def _describe(path: Path) -> dict[str, object]:
    data = path.read_bytes()
    return {
        "bytes": len(data),
        "chars": len(data.decode()),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def _tool_version(command: list[str]) -> str:
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False, timeout=30)
    except OSError:
        return "not installed"
    return result.stdout.splitlines()[0] if result.stdout else "unknown"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")


def build(directory: Path = CORPUS_DIR) -> dict[str, object]:
    """Build every corpus file in ``directory`` and return the manifest.

    Raises:
        RuntimeError: the machine has less than 10 MB of text from these sources.
    """
    seen: set[str] = set()
    streams = {name: _parts(make(), seen) for name, make in SOURCES.items()}
    parts, mix = merge(streams, WEIGHTS, SIZES["10mb"] + PART_LIMIT)
    full = cut("\n\n".join(parts) + "\n", SIZES["10mb"])
    if len(full.encode()) < SIZES["10mb"] * 0.99:
        raise RuntimeError(f"only {len(full.encode())} bytes of text found; need 10 MB")
    texts = {f"corpus_{name}.txt": cut(full, size) for name, size in SIZES.items() if size <= 1e7}
    passes = ["\n\n".join(order(parts, seed=f"{SEED}-pass-{k}")) for k in range(1, 12)]
    texts["corpus_100mb.txt"] = cut("\n\n".join(passes) + "\n", SIZES["100mb"])
    texts["small.txt"] = cut(full, SMALL_BYTES)
    for name, text in texts.items():
        _write(directory / name, text)
    for i, piece in enumerate(split_files(full, FILE_COUNT)):
        _write(directory / "files_1000" / f"{i:04d}.txt", piece)
    manifest: dict[str, object] = {
        "version": VERSION,
        "python": platform.python_version(),
        "groff": _tool_version(["groff", "--version"]),
        "mix_bytes_10mb": mix,
        "parts": len(parts),
        "files": {name: _describe(directory / name) for name in sorted(texts)},
        "files_1000": len(list((directory / "files_1000").iterdir())),
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def ensure(directory: Path = CORPUS_DIR, *, force: bool = False) -> dict[str, object]:
    """Return the manifest of the corpus in ``directory``, building it first when needed."""
    manifest_path = directory / "manifest.json"
    if not force and manifest_path.exists():
        manifest: dict[str, object] = json.loads(manifest_path.read_text())
        files = manifest.get("files")
        if (
            manifest.get("version") == VERSION
            and isinstance(files, dict)
            and all((directory / name).exists() for name in files)
        ):
            return manifest
    return build(directory)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the benchmark corpus.")
    parser.add_argument("--force", action="store_true", help="rebuild even if it exists")
    parser.add_argument("--dir", type=Path, default=CORPUS_DIR, help="output directory")
    args = parser.parse_args(argv)
    manifest = ensure(args.dir, force=args.force)
    print(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
