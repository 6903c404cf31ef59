"""The local model's transformer run by ONNX Runtime: the same float32 weights, less CPU time.

sentence-transformers runs a model's transformer with torch. On the CPU, ONNX Runtime runs the
same graph faster (all-MiniLM-L6-v2 on 2 cores: figures in benchmarks/README.md) and gives the
same vectors to within float32 rounding. Only the transformer, the first of the model's modules,
runs here; its token vectors go on through the model's other modules (pooling, dense layers,
normalisation) as loaded, so any pipeline of those is kept as it is.

The transformer is exported once per model revision (``torch.onnx``, which needs the ``onnx``
package) into ``onnx/`` under ragchunk's user cache directory, written whole or not at all; a
directory that cannot be written keeps the export in memory for the process. Every session is
checked on load against torch on a probe text: a session whose vectors differ (cosine under
``AGREEMENT``) is not used. torch, numpy and onnxruntime are imported inside the functions.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ragchunk.defaults import default_cache_dir

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

RUNTIMES: Final = ("auto", "torch", "onnx")
"""``--embed-runtime``: ``auto`` is ONNX Runtime on the CPU when it is installed, else torch."""
OPSET: Final = 17
AGREEMENT: Final = 0.9999
"""The least cosine between a session's vectors of the probe text and torch's."""
PROBE: Final = ("ONNX Runtime must give torch's vectors.", "A second, longer probe: 2 + 2 = 4.")


class UnavailableError(Exception):
    """ONNX Runtime cannot run this model here; the message says why."""


def installed() -> bool:
    """Return whether onnxruntime and onnx (the exporter's) are installed (importing neither)."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


class OnnxEncoder:
    """A sentence-transformers model whose transformer runs in an ONNX Runtime session."""

    def __init__(self, model: Any, revision: str, *, threads: int | None) -> None:
        """Export (or find) the model's transformer and open a checked session over it.

        Args:
            model: the loaded SentenceTransformer, on the CPU.
            revision: the model's identity (name and a digest of its files): the export's key.
            threads: ONNX Runtime's threads for one batch; None: one per physical core.

        Raises:
            UnavailableError: onnxruntime or onnx is missing, the model is not a transformer
                followed by modules of token vectors, the export failed, or the session's
                vectors differ from torch's.
        """
        if not installed():
            raise UnavailableError("onnxruntime and onnx are not installed")
        self._model = model
        self._transformer = _transformer(model)
        self._preprocess: Callable[[list[str]], dict[str, Any]] = getattr(
            model, "preprocess", None
        ) or getattr(model, "tokenize")  # noqa: B009 (sentence-transformers < 6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self._inputs = [
                name
                for name in ("input_ids", "attention_mask", "token_type_ids")
                if name in self._preprocess(["probe"])
            ]
        digest = hashlib.blake2b(
            f"{revision}\0{_versions()}\0{self._inputs}".encode("utf-8", "surrogatepass"),
            digest_size=16,
        ).hexdigest()
        self._session: Any = None
        self._open(Path(default_cache_dir()) / "onnx" / f"{digest}.onnx", threads)

    def encode(self, texts: Sequence[str], batch_size: int) -> NDArray[np.float32]:
        """Return the unit vector of each text, in order (batches of texts of like lengths)."""
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        rows: list[Any] = [None] * len(texts)
        for first in range(0, len(order), batch_size):
            chosen = order[first : first + batch_size]
            vectors = self._batch([texts[i] for i in chosen])
            for i, vector in zip(chosen, vectors, strict=True):
                rows[i] = vector
        matrix = np.stack(rows).astype(np.float32, copy=False)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.maximum(norms, 1e-12)  # type: ignore[no-any-return]

    def _batch(self, texts: list[str]) -> Any:
        import numpy as np
        import torch

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            features = self._preprocess(texts)
        feeds = {name: features[name].numpy().astype(np.int64) for name in self._inputs}
        hidden = self._session.run(None, feeds)[0]
        features["token_embeddings"] = torch.from_numpy(hidden)
        with torch.inference_mode():
            for module in list(self._model)[1:]:
                features = module(features)
        return features["sentence_embedding"].float().numpy()

    def _open(self, path: Path, threads: int | None) -> None:
        """Open the session over the export at ``path`` (made first if missing or unreadable)."""
        ort = importlib.import_module("onnxruntime")
        options = ort.SessionOptions()
        options.log_severity_level = 3  # errors only: nothing on our stderr
        options.inter_op_num_threads = 1
        if threads is not None:
            options.intra_op_num_threads = threads

        def session(graph: str | bytes) -> Any:
            return ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])

        if path.is_file():
            with contextlib.suppress(Exception):  # a damaged file is exported again below
                self._session = session(str(path))
                if self._agreement() >= AGREEMENT:
                    return
        self._session = session(self._export_to(path))
        agreement = self._agreement()
        if not agreement >= AGREEMENT:
            raise UnavailableError(
                f"its vectors differ from torch's (cosine {agreement:.6f} < {AGREEMENT})"
            )

    def _export_to(self, path: Path) -> str | bytes:
        """Export the transformer to ``path``, whole or not at all, and return the path.

        A directory that cannot be written: the export is made in a temporary directory and
        returned as bytes, kept in memory by the session.
        """
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(dir=path.parent, prefix=".export-", suffix=".onnx")
        except OSError:
            with tempfile.TemporaryDirectory(prefix="ragchunk-onnx-") as folder:
                target = Path(folder) / "model.onnx"
                self._export(target)
                return target.read_bytes()
        os.close(handle)
        temporary = Path(name)
        try:
            self._export(temporary)
            temporary.replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
        return str(path)

    def _export(self, target: Path) -> None:
        import torch

        network = self._transformer.auto_model
        names = self._inputs

        class Hidden(torch.nn.Module):
            """The transformer's token vectors from its inputs, positionally (for export)."""

            def __init__(self) -> None:
                super().__init__()
                self.network = network

            def forward(self, *tensors: Any) -> Any:
                return self.network(**dict(zip(names, tensors, strict=True))).last_hidden_state

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            features = self._preprocess(list(PROBE))
        sample = tuple(features[name] for name in names)
        axes = {name: {0: "batch", 1: "tokens"} for name in (*names, "hidden")}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(
                    Hidden().eval(),
                    sample,
                    str(target),
                    input_names=names,
                    output_names=["hidden"],
                    dynamic_axes=axes,
                    opset_version=OPSET,
                    dynamo=False,
                )
        except Exception as exc:  # the exporter's errors have no common base
            from ragchunk.backends.local import first_line

            reason = first_line(str(exc)) or type(exc).__name__
            raise UnavailableError(f"the export failed: {reason}") from exc

    def _agreement(self) -> float:
        """Return the least cosine between this session's vectors of the probe and torch's."""
        import numpy as np

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = self._model.encode(
                list(PROBE), convert_to_numpy=True, normalize_embeddings=True
            )
        got = self.encode(PROBE, len(PROBE))
        return float(np.min(np.sum(expected * got, axis=1)))


def _transformer(model: Any) -> Any:
    """Return the model's first module if it is a transformer whose output the rest pool."""
    modules = list(model)
    first = modules[0] if modules else None
    if type(first).__name__ != "Transformer" or not hasattr(first, "auto_model"):
        raise UnavailableError("the model's first module is not a transformer")
    if model.device.type != "cpu":
        raise UnavailableError(f"the model is on {model.device.type}, not the CPU")
    return first


def _versions() -> str:
    """The exporter's and the runtime's versions: an export is made again when either changes."""
    import torch

    ort = importlib.import_module("onnxruntime")
    return f"torch {torch.__version__}, onnxruntime {ort.__version__}, opset {OPSET}"
