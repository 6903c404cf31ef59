"""The ``openai`` chat backend: any OpenAI-compatible ``/v1/chat/completions`` endpoint.

OpenAI, Ollama, vLLM and llama.cpp's server all take ``POST {url}/chat/completions`` with
``{"model", "messages", "temperature", "response_format"}`` and answer with
``choices[0].message.content`` plus a ``usage`` of prompt and completion tokens. Transport —
timeouts, retries with backoff honouring ``Retry-After``, the key read from an environment
variable and masked in every message — is ``backends/http.py``'s ``JsonClient``.

Structured output: the first request to an endpoint asks for the JSON schema in OpenAI's form
(``{"type": "json_schema", ...}``), an HTTP 500 then not retried; an endpoint that refuses
it (HTTP 400, 422, 500 or 501: llama.cpp's server answers 500) is asked next with
``{"type": "json_object", "schema": ...}`` (llama.cpp and vLLM constrain the answer to the
schema by grammar; others read it as plain JSON mode), then with no ``response_format`` at all.
The prompt always spells out the JSON wanted, so every mode works; the mode that worked is
remembered per endpoint for the life of the process (``forget_modes`` forgets it).

An answer may hold at most ``MAX_ANSWER`` bytes (8 MiB), or ``ANSWER_BYTES_PER_TOKEN`` per
token of ``max_tokens`` when that is more: a 1,024-token answer takes a few KiB.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ragchunk.backends._spec import ChatAnswer, ChatBackend, check_url
from ragchunk.settings import Chat

if TYPE_CHECKING:
    from ragchunk.model import ChatRequest, JSONValue

MODES: Final = ("json_schema", "json_object", "plain")
"""The ways to ask for JSON, tried in this order until the endpoint accepts one."""
_REFUSED_MODE: Final = frozenset({400, 422, 500, 501})
_MODE_OF: dict[str, str] = {}
"""The structured-output mode each endpoint URL accepted, in this process."""
_MODE_LOCK: Final = threading.Lock()
MAX_ANSWER: Final = 8 * 1024 * 1024
"""The least cap on one answer's bytes."""
ANSWER_BYTES_PER_TOKEN: Final = 256
"""The cap on one answer's bytes per token it may hold, past ``MAX_ANSWER``."""


def chat_url(base: str) -> str:
    """Return the URL to post to: ``base`` when it ends in ``/chat/completions``, else appended.

    ``base`` is the API root as OpenAI clients take it (``http://127.0.0.1:8080/v1``).
    """
    base = base.rstrip("/")
    return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


def forget_modes() -> None:
    """Forget which structured-output mode each endpoint took (as a new process starts)."""
    with _MODE_LOCK:
        _MODE_OF.clear()


_CHAT: Final = Chat()
"""The defaults of the chat settings, written once in the settings tree."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenAIChatOptions:
    """The openai chat backend's options (``ChatSpec`` passes its fields of these names).

    Attributes:
        url: the endpoint's base URL, such as ``http://127.0.0.1:8080/v1`` (``--api-base``).
        model: the model name the endpoint serves (``--model``).
        key_env: the environment variable holding the key, sent as a bearer token when set;
            never logged, stored or shown (``--api-key-env``).
        temperature: sampling temperature.
        max_tokens: the most tokens one answer may hold.
        timeout: seconds one attempt may take, from connecting (at most 10 of them) to the
            answer's last byte.
        concurrency: requests in flight at once.
        retries: attempts after the first on a timeout, a refused connection, 429 or 5xx.
    """

    url: str | None = None
    model: str | None = None
    key_env: str = _CHAT.api_key_env
    temperature: float = _CHAT.temperature
    max_tokens: int = _CHAT.max_tokens
    timeout: float = _CHAT.api_timeout
    concurrency: int = _CHAT.api_concurrency
    retries: int = _CHAT.api_retries

    def __post_init__(self) -> None:
        if self.url is not None:
            check_url("--api-base", self.url)

    def ready(self) -> bool:
        """Return whether both the URL and the model are given."""
        return bool(self.url and self.model)

    def label(self) -> str:
        """Return ``model@url``: what chunk ids depend on when this model writes the chunks."""
        return f"{self.model}@{chat_url(self.url or '')}"

    def identity(self) -> tuple[str, ...]:
        """Return the endpoint's URL and the model: what cached answers are keyed on."""
        return (chat_url(self.url or ""), self.model or "")

    def load(self) -> OpenAIChat:
        """Return a client of the endpoint (no request is sent yet)."""
        return OpenAIChat(self)


class OpenAIChat:
    """Answers from an OpenAI-compatible chat endpoint (see the module docstring)."""

    def __init__(self, options: OpenAIChatOptions) -> None:
        # The HTTP client loads with the first client: every run reads the chat options (an
        # option of the plan), few ask an endpoint (http.client, ssl, email).
        from ragchunk.backends.http import Endpoint, JsonClient

        self._options = options
        self.url = chat_url(options.url or "")
        self.name = "chat endpoint"
        endpoint = Endpoint(
            url=self.url,
            name=self.name,
            key_env=options.key_env or None,
            connect_timeout=min(10.0, options.timeout),
            read_timeout=options.timeout,
            concurrency=options.concurrency,
            retries=options.retries,
            max_answer=max(MAX_ANSWER, options.max_tokens * ANSWER_BYTES_PER_TOKEN),
        )
        self._client = JsonClient(endpoint)
        self._probe = JsonClient(dataclasses.replace(endpoint, final=_REFUSED_MODE))

    def complete(self, request: ChatRequest) -> ChatAnswer:
        """Return the endpoint's answer to ``request``.

        Raises:
            EndpointError: the endpoint failed or answered without a message.
        """
        return self._read(self._post(request))

    def _post(self, request: ChatRequest) -> JSONValue:
        from ragchunk.backends.http import EndpointError

        with _MODE_LOCK:
            mode, confirmed = _MODE_OF.get(self.url, MODES[0]), self.url in _MODE_OF
        while True:
            body = self._body(request, mode)
            if confirmed or mode == MODES[-1]:
                answer = self._client.post(body)
                break
            try:
                answer = self._probe.post(body)
                break
            except EndpointError as exc:
                if exc.status not in _REFUSED_MODE:  # not about the mode (retried already)
                    raise
                mode = MODES[MODES.index(mode) + 1]
        with _MODE_LOCK:
            _MODE_OF[self.url] = mode
        return answer

    def _body(self, request: ChatRequest, mode: str) -> dict[str, JSONValue]:
        options = self._options
        body: dict[str, JSONValue] = {
            "model": options.model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
            "temperature": options.temperature,
            "max_tokens": options.max_tokens,
        }
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.name, "schema": request.schema, "strict": True},
            }
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object", "schema": request.schema}
        return body

    def _read(self, answer: JSONValue) -> ChatAnswer:
        choices = answer.get("choices") if isinstance(answer, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            from ragchunk.backends.http import EndpointError

            raise EndpointError(f"{self.name} {self.url} answered without a message content")
        assert isinstance(answer, dict)  # choices came from it
        usage = answer.get("usage")
        if not isinstance(usage, dict):
            return ChatAnswer(content)
        tokens = (_count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))
        return ChatAnswer(content, *tokens)


def _count(value: JSONValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


BACKEND = ChatBackend(
    name="openai",
    summary="Any OpenAI-compatible /v1/chat/completions endpoint (OpenAI, Ollama, vLLM...).",
    options=OpenAIChatOptions,
    forget=forget_modes,
)
