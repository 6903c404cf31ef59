"""Manifests (``--manifest FILE``): what earlier runs chunked, so a rerun redoes only what changed.

The manifest is a JSON file, written atomically at the end of every run (an interrupted run
records the inputs it finished)::

    {"format": 1,
     "inputs": {"docs/a.md": {"hash": "<SHA-256 of the input's bytes>",
                              "settings": "<digest of everything that shapes its chunks>",
                              "output": "out/docs/a.md.jsonl", "chunks": 12}}}

Paths are relative to the manifest's directory, so the tree can move. An input is *unchanged*
when its bytes, its settings digest (the plan, the ragchunk version) and its output place are
those recorded and, with ``-o DIR/``, its output file still exists: it is then not parsed at all.
An input recorded under a walked directory that the walk no longer finds is *gone*: its entry
is dropped and its output removed. Standard input is never recorded.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ragchunk.defaults import STDIN
from ragchunk.errors import UsageError
from ragchunk.runs.inputs import absolute

if TYPE_CHECKING:
    from ragchunk.pipeline.plan import Recipe

FORMAT: Final = 1


@dataclass(frozen=True, slots=True)
class Entry:
    """What the manifest remembers of one input.

    Attributes:
        hash: SHA-256 of the input's bytes.
        settings: the settings digest (``settings_digest``).
        output: its JSONL file relative to the manifest's directory, or None when the chunks
            went to standard output or one shared file.
        chunks: how many chunks it gave.
    """

    hash: str
    settings: str
    output: str | None
    chunks: int


@dataclass(frozen=True, slots=True)
class Manifest:
    """A loaded manifest: its path and its entries by input key (see ``key``)."""

    path: Path
    entries: Mapping[str, Entry]

    def key(self, source: str) -> str:
        """Return the entry key of an input: its path relative to the manifest's directory."""
        return _relative(source, self.path.parent)

    def output_key(self, output: Path | None) -> str | None:
        """Return how an output file is recorded: relative to the manifest's directory."""
        return None if output is None else _relative(str(output), self.path.parent)

    def known_hash(self, source: str, settings: str, output: Path | None) -> str | None:
        """Return the recorded content hash when nothing but the bytes can have changed.

        None means the input must be processed whatever its bytes: it is new, its settings or
        output place changed, or its output file is missing.
        """
        if source == STDIN:
            return None
        entry = self.entries.get(self.key(source))
        if entry is None or entry.settings != settings:
            return None
        if entry.output != self.output_key(output):
            return None
        if output is not None and not output.is_file():
            return None
        return entry.hash

    def gone(self, roots: Iterable[str], found: Iterable[str]) -> dict[str, Entry]:
        """Return the entries under the walked directories ``roots`` that were not ``found``.

        Entries outside ``roots`` belong to runs over other paths and are left alone.
        """
        prefixes = [self.key(root) for root in roots]
        present = {self.key(source) for source in found}
        return {
            key: entry
            for key, entry in self.entries.items()
            if key not in present and any(_is_under(key, prefix) for prefix in prefixes)
        }

    def resolve(self, relative: str) -> Path:
        """Return the path of a recorded output."""
        return self.path.parent / relative


def settings_digest(recipe: Recipe) -> str:
    """Return a digest of everything that shapes the chunks (the recipe) and of the version.

    Every recipe field counts, fields added later included; the strategy is taken by name.
    The run's policy (a password, a timeout, a byte cap) only decides whether an input is
    chunked, so it is not part of the digest.
    """
    from importlib.metadata import version

    parts = [f"ragchunk={version('ragchunk')}", f"strategy={recipe.strategy.name}"]
    parts.extend(
        f"{f.name}={getattr(recipe, f.name)!r}"
        for f in dataclasses.fields(recipe)
        if f.name not in ("strategy", "fingerprint")
    )
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def load_manifest(path: Path) -> Manifest:
    """Return the manifest at ``path``; a file that does not exist yet is an empty manifest.

    Raises:
        UsageError: the file exists but is not a ragchunk manifest.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Manifest(path, {})
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--manifest: cannot read {path} ({exc})") from None
    try:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, expected {FORMAT}")
        entries = {str(k): Entry(**v) for k, v in data["inputs"].items()}
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise UsageError(
            f"--manifest: {path} is not a ragchunk manifest ({exc}); delete it to start afresh"
        ) from None
    return Manifest(path, entries)


def save_manifest(path: Path, entries: Mapping[str, Entry]) -> None:
    """Write the manifest atomically, entries sorted by key."""
    from ragchunk.sinks.atomic import atomic_writer
    from ragchunk.sinks.jsonl import escape_surrogates

    data = {
        "format": FORMAT,
        "inputs": {key: dataclasses.asdict(entries[key]) for key in sorted(entries)},
    }
    with atomic_writer(path) as handle:
        handle.write(escape_surrogates(json.dumps(data, indent=1, ensure_ascii=False)) + "\n")


def _relative(path: str, base: Path) -> str:
    return Path(os.path.relpath(absolute(path), absolute(base))).as_posix()


def _is_under(key: str, prefix: str) -> bool:
    return prefix == "." or key == prefix or key.startswith(prefix.rstrip("/") + "/")
