"""The sink table: name → (module, ``-o`` suffixes, URL schemes), and choosing a sink for ``-o``.

Each sink module exposes ``SINK`` (see ``_spec.py``); choosing one by name, suffix or scheme
imports nothing but the table. To add a sink, write its module and add one line here.
The other modules here write what is not a sink: summaries (``stats``), atomic files
(``atomic``), the ``-o DIR/`` tree (``tree``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from ragchunk import registry
from ragchunk.errors import OptionError, UsageError

if TYPE_CHECKING:
    from ragchunk.sinks._spec import SinkSpec


class SinkLine(NamedTuple):
    """A line of the table: the sink's module, and what picks it from ``-o`` alone."""

    module: str
    suffixes: tuple[str, ...] = ()
    """``-o`` file suffixes (lower case); the first names each file under ``-o DIR/``."""
    schemes: tuple[str, ...] = ()
    """URL schemes (``sqlite`` for ``-o sqlite:///index.db``)."""


SINKS: Final[dict[str, SinkLine]] = {
    "jsonl": SinkLine("ragchunk.sinks.jsonl", (".jsonl",)),
    "parquet": SinkLine("ragchunk.sinks.parquet", (".parquet",)),
    "table": SinkLine("ragchunk.sinks.table"),
    "sqlite": SinkLine("ragchunk.sinks.sqlite", schemes=("sqlite",)),
    "pgvector": SinkLine("ragchunk.sinks.pgvector", schemes=("postgresql", "postgres")),
    "chroma": SinkLine("ragchunk.sinks.chroma", schemes=("chroma",)),
    "qdrant": SinkLine("ragchunk.sinks.qdrant", schemes=("qdrant",)),
    "lancedb": SinkLine("ragchunk.sinks.lancedb", schemes=("lancedb",)),
    "milvus": SinkLine("ragchunk.sinks.milvus", schemes=("milvus",)),
}

DEFAULT_SINK: Final = "jsonl"
"""What ``-o`` writes when neither ``--output-format`` nor its name says (and standard output)."""


def get(name: str) -> SinkSpec:
    """Return the sink registered as ``name``.

    Raises:
        OptionError: no sink has that name.
    """
    modules = {key: line.module for key, line in SINKS.items()}
    spec: SinkSpec = registry.load(modules, name, option="--output-format", attribute="SINK")
    return spec


def names() -> tuple[str, ...]:
    """Return every sink name, sorted."""
    return tuple(sorted(SINKS))


def output_formats() -> tuple[str, ...]:
    """Return what ``--output-format`` accepts: the sinks ``-o`` can name (by suffix or URL)."""
    return tuple(name for name, line in SINKS.items() if line.suffixes or line.schemes)


def file_suffix(name: str) -> str:
    """Return the suffix of the files sink ``name`` writes under ``-o DIR/``."""
    suffixes = SINKS[name].suffixes
    return suffixes[0] if suffixes else f".{name}"


def is_url(output: str) -> bool:
    """Return whether ``-o`` names a store by URL (``sqlite:///index.db``), not a file."""
    scheme, sep, _ = output.partition("://")
    return bool(sep) and scheme.isidentifier()


def choose(output: str | None, given: str | None, *, is_directory: bool = False) -> str:
    """Return the sink ``-o`` writes: ``--output-format`` if given, else what ``-o`` says.

    A URL chooses by its scheme, a file by its suffix; any other file, a directory and
    standard output get ``DEFAULT_SINK`` unless ``--output-format`` says otherwise.

    Raises:
        OptionError: an unknown format, one that contradicts the ``-o`` name, or a sink that
            cannot write where ``-o`` points (a file sink to standard output...).
        UsageError: the sink's library is not installed.
    """
    formats = output_formats()
    if given is not None and given not in formats:
        raise OptionError("--output-format", f"must be one of {', '.join(formats)} (got {given!r})")
    implied = _implied(output, is_directory=is_directory)
    if given is not None and implied is not None and given != implied:
        raise OptionError("--output-format", f"{given} does not fit -o {output}")
    chosen = given or implied or DEFAULT_SINK
    spec = get(chosen)
    if output is None and not spec.stream:
        message = f"{chosen} needs -o FILE or -o DIR/ (it is not written to standard output)"
        raise OptionError("--output-format", message)
    if output is not None and not is_url(output) and not spec.files:
        raise OptionError("--output-format", f"{chosen} does not fit -o {output}")
    if spec.missing is not None and (missing := spec.missing()) is not None:
        raise UsageError(missing)
    return chosen


def _implied(output: str | None, *, is_directory: bool) -> str | None:
    """Return the sink that ``-o`` names by its URL scheme or file suffix, if any."""
    if output is None or is_directory:
        return None
    if is_url(output):
        scheme = output.partition("://")[0].lower()
        chosen = [name for name, line in SINKS.items() if scheme in line.schemes]
        if not chosen:
            known = sorted(s for line in SINKS.values() for s in line.schemes)
            choices = ", ".join(f"{s}://" for s in known) or "none"
            raise OptionError("-o", f"{output}: no sink writes {scheme}:// (choose from {choices})")
        return chosen[0]
    suffix = Path(output).suffix.lower()
    return next((name for name, line in SINKS.items() if suffix in line.suffixes), None)
