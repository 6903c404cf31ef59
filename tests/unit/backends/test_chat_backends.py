"""A chat backend added by one table line: this module is one (``echo``), used by ChatClient."""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass
from pathlib import Path

import pytest

from ragchunk import backends
from ragchunk.backends import ChatAnswer, ChatBackend
from ragchunk.backends.chat import ChatClient, ChatSpec, forget_modes
from ragchunk.errors import BackendError, OptionError
from ragchunk.model import ChatRequest

FORGOTTEN: list[str] = []
REQUEST = ChatRequest("system words", "user words", {"type": "object"}, "v1")


@dataclass(frozen=True, slots=True, kw_only=True)
class EchoOptions:
    """Reads ``model`` and ``temperature`` from ChatSpec; ``url`` it ignores."""

    model: str | None = None
    temperature: float = 0.0

    def ready(self) -> bool:
        return self.model is not None

    def label(self) -> str:
        return f"echo:{self.model}"

    def identity(self) -> tuple[str, ...]:
        return ("echo", self.model or "")

    def load(self) -> Echo:
        return Echo(self)


class Echo:
    name = "echo model"

    def __init__(self, options: EchoOptions) -> None:
        self.url = f"echo://{options.model}"
        self.calls = 0

    def complete(self, request: ChatRequest) -> ChatAnswer:
        self.calls += 1
        if request.user == "fail":
            raise BackendError(f"{self.name} {self.url} failed on purpose")
        # JSON of the request's schema (an object): only such answers are cached
        return ChatAnswer(json.dumps({"said": request.user.upper()}), tokens_in=3, tokens_out=2)


def forget() -> None:
    FORGOTTEN.append("echo")


BACKEND = ChatBackend(
    name="echo",
    summary="Answers with the user's message in capitals.",
    options=EchoOptions,
    forget=forget,
)


@pytest.fixture
def echo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(backends.BACKENDS["chat"], "echo", __name__)


@pytest.mark.usefixtures("echo")
def test_a_registered_chat_backend_answers_through_the_cache(tmp_path: Path) -> None:
    spec = ChatSpec(backend="echo", model="loud", url="not a url, and not read")
    assert isinstance(spec.options, EchoOptions)
    assert (spec.ready, spec.label) == (True, "echo:loud")
    client = ChatClient(spec, str(tmp_path))
    assert (client.name, client.url) == ("echo model", "echo://loud")
    assert client.ask(REQUEST).content == '{"said": "USER WORDS"}'
    again = ChatClient(spec, str(tmp_path)).ask(REQUEST)  # a new client: from disk
    assert (again.content, again.cached) == ('{"said": "USER WORDS"}', True)
    failed = client.ask(ChatRequest("s", "fail", {}, "v1"))
    assert failed.error == "echo model echo://loud failed on purpose"
    assert client.tally.as_dict() == {
        "calls": 2,
        "cached": 0,
        "tokens_in": 3,
        "tokens_out": 2,
        "failures": 1,
        "skipped": 0,
    }
    FORGOTTEN.clear()
    forget_modes()
    assert FORGOTTEN == ["echo"]
    assert pickle.loads(pickle.dumps(spec)) == spec  # the spec crosses to worker processes


@pytest.mark.usefixtures("echo")
def test_a_chat_backends_name_is_checked() -> None:
    with pytest.raises(OptionError) as raised:
        ChatSpec(backend="echoo")
    assert str(raised.value) == "chat backend must be one of echo, openai (got 'echoo')"
    with pytest.raises(OptionError, match="--api-base"):
        ChatClient(ChatSpec(backend="echo"), None)  # not ready: no model
