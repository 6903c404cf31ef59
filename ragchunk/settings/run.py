"""How a run treats its inputs (``RunPolicy``, per input) and which inputs it takes (``Run``)."""

from __future__ import annotations

from dataclasses import dataclass

from ragchunk.defaults import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_TEXT,
    DEFAULT_TIMEOUT,
    ENGINES,
    Engine,
)
from ragchunk.errors import OptionError
from ragchunk.settings._leaf import FORMATS, INPUT, LLM, OUTPUT, RUN, leaf


@dataclass(frozen=True, slots=True, kw_only=True)
class RunPolicy:
    """How each input is treated; nothing here changes a chunk.

    ``timeout`` is None in the library (no time limit: the timer takes over ``SIGALRM`` while
    an input is processed); the command line's default is ``DEFAULT_TIMEOUT``.
    """

    timeout: float | None = leaf(
        "--timeout",
        default=None,
        help="Fail an input that takes longer than this many seconds; the others go on.",
        panel=RUN,
        metavar="SECONDS",
        command_line=DEFAULT_TIMEOUT,
    )
    max_bytes: int = leaf(
        "--max-bytes",
        default=DEFAULT_MAX_BYTES,
        help="Refuse an input larger than this, or whose compressed parts (DOCX members, "
        "PDF streams) expand past it.",
        panel=INPUT,
        metavar="BYTES",
    )
    max_text: int = leaf(
        "--max-text",
        default=DEFAULT_MAX_TEXT,
        help="Refuse an input whose parsed text grows past this many characters (DOCX, PPTX, "
        "XLSX, EPUB; an e-mail's such attachments together).",
        panel=INPUT,
        metavar="CHARS",
    )
    password: str | None = leaf(
        "--password",
        default=None,
        help="Password for encrypted PDFs.",
        panel=FORMATS,
        key=False,
        show_default=False,
    )
    debug: bool = leaf(
        "--debug",
        default=False,
        help="Show tracebacks for unexpected errors.",
        panel=RUN,
        key=False,
    )
    check: bool = leaf(
        "--check",
        default=False,
        help="Also check every input's chunks against the output contract (verbatim, "
        "nothing lost, size, order, overlap, determinism); report violations on stderr "
        "and exit 1 if any.",
        panel=RUN,
        key=False,
    )
    allow_empty: bool = leaf(
        "--allow-empty",
        default=False,
        help="Accept an input in which no text is found (a scan without --ocr) with no chunks, "
        "instead of failing it.",
        panel=FORMATS,
        key=False,
    )
    dry_run: bool = leaf(
        "--dry-run",
        default=False,
        help="Call no model and write no chunks: report the calls and prompt tokens the "
        "run would make.",
        panel=LLM,
        key=False,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """Which inputs a run takes and how it spreads them: the top level of a file sets these."""

    include: tuple[str, ...] = leaf(
        "--include",
        default=(),
        help="In directories, chunk only files matching GLOB (repeatable).",
        panel=INPUT,
        metavar="GLOB",
        show_default=False,
    )
    exclude: tuple[str, ...] = leaf(
        "--exclude",
        default=(),
        help="In directories, skip files and directories matching GLOB (repeatable).",
        panel=INPUT,
        metavar="GLOB",
        show_default=False,
    )
    gitignore: bool = leaf(
        "--no-gitignore",
        default=True,
        help="Also chunk files that .gitignore ignores.",
        panel=INPUT,
        negative=True,
        param="no_gitignore",
    )
    jobs: int | None = leaf(
        "--jobs",
        "-j",
        default=None,
        help="Worker processes (default: the number of CPU cores).",
        panel=RUN,
        show_default=False,
    )
    fail_fast: bool = leaf(
        "--fail-fast", default=False, help="Stop at the first input that fails.", panel=RUN
    )
    manifest: str | None = leaf(
        "--manifest",
        default=None,
        help="Record inputs here; reruns skip unchanged ones and remove the "
        "outputs of deleted ones.",
        panel=RUN,
        metavar="FILE",
        show_default=False,
    )
    root: str | None = leaf(
        "--root",
        default=None,
        help="doc_id is each file's path relative to DIR (files outside it keep their "
        "absolute path) [default: the current directory].",
        panel=OUTPUT,
        metavar="DIR",
        show_default=False,
    )
    engine: Engine = leaf(
        "--engine",
        default="local",
        help="Where to chunk: local (worker processes, --jobs) or ray (a Ray cluster: "
        "a local one unless --ray-address).",
        panel=RUN,
        completions=ENGINES,
    )
    ray_address: str | None = leaf(
        "--ray-address",
        default=None,
        help="With --engine ray: the cluster to join (auto, HOST:PORT or "
        "ray://HOST:PORT) instead of starting a local one.",
        panel=RUN,
        metavar="ADDRESS",
        show_default=False,
    )

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            listed = ", ".join(ENGINES)
            raise OptionError("--engine", f"must be one of {listed} (got {self.engine!r})")
