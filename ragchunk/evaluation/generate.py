"""Question generation: a chat model writes questions with exact evidence spans per document.

The Chroma report's method ("Evaluating Chunking Strategies for Retrieval"), kept exact. Each
document's sentences (``text.sentences``) are packed into windows of at most ``window``
characters; the questions wanted per document are spread over its windows deterministically
(an even share each, the remainder to evenly spaced windows, rotated by ``seed``); each chosen
window is one chat request asking for its share of questions, each with its evidence:

- ``sentences`` (default): the window's sentences are shown numbered and the model answers with
  sentence numbers; a run of consecutive numbers is one evidence span. Evidence is exact by
  construction, which suits small models.
- ``excerpts``: the model copies the evidence from the window. An excerpt is located in the
  document with its surrounding whitespace trimmed, verbatim first in its window, then anywhere
  in the document, then with each run of whitespace allowed to differ (a line break copied as a
  space). The span found is kept, never the model's words: every excerpt stored is
  ``text[start:end]``.

A question is dropped, and counted, when it has fewer than ``MIN_QUESTION_WORDS`` words, no
evidence or more than ``MAX_EVIDENCE`` pieces (``invalid``), when its evidence is not found
(``not_found``), when it shares no content word with its evidence (``unrelated``: a question
copied from the prompt's form or about something else; ``vetting.is_related``), when it is
near-identical to a question already kept (``duplicate``: the Jaccard similarity of the two
questions' lower-cased word sets is at least ``vetting.DUPLICATE_THRESHOLD``, 0.8, compared
across all documents in input order), or when its window already gave what was asked of it
(``surplus``). A reply that is not JSON of the shape asked for is
``malformed`` and a failed call ``failed``; both are reported as a ``Diagnostic`` naming the
document and window, and the other documents go on. Ids are ``q-001``, ``q-002``, ... in
document, window and answer order: the same documents and answers give the same file.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from ragchunk.errors import OptionError
from ragchunk.evaluation import prompts, vetting
from ragchunk.evaluation.windows import Window, allot, cut_windows
from ragchunk.model import ChatRequest
from ragchunk.pipeline.results import Diagnostic

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ragchunk.backends.chat import ChatClient
    from ragchunk.model import ChatReply, JSONValue

EvidenceMode = Literal["sentences", "excerpts"]
EVIDENCE_MODES: Final = ("sentences", "excerpts")
DEFAULT_WINDOW: Final = 3000
"""Characters per window: about 750 tokens of English, room for the prompt in a 2k context."""
MIN_WINDOW: Final = 200
MAX_EVIDENCE: Final = 5
"""Evidence pieces a question may have (the Chroma report's limit)."""
MIN_QUESTION_WORDS: Final = 3
COUNT_NAMES: Final = (
    "documents",
    "windows",
    "requests",
    "asked",
    "proposed",
    "kept",
    "not_found",
    "unrelated",
    "duplicate",
    "invalid",
    "surplus",
    "malformed",
    "failed",
    "cached",
)
"""The counts of ``GeneratedQuestions.counts``, in order. ``requests`` is one per window asked,
``asked`` the questions asked for, ``proposed`` the question items of well-formed answers
(``kept + not_found + unrelated + duplicate + invalid + surplus``), ``malformed`` and
``failed`` count replies, ``cached`` the replies that came from the answer cache."""

_FENCE: Final = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class EvidenceSpan:
    """One piece of evidence: absolute, half-open ``[start, end)``, ``excerpt`` its text."""

    start: int
    end: int
    excerpt: str


@dataclass(frozen=True, slots=True)
class GeneratedQuestion:
    """A kept question: its id, text, document name, evidence spans (in order, disjoint).

    ``window`` is the ``(start, end)`` of the window the question was asked about.
    """

    id: str
    question: str
    document: str
    evidence: tuple[EvidenceSpan, ...]
    window: tuple[int, int]

    def to_record(self, generated: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
        """Return the question file's record (``generated`` says by what; the window is added)."""
        return {
            "id": self.id,
            "question": self.question,
            "document": self.document,
            "evidence": [
                {"start": e.start, "end": e.end, "excerpt": e.excerpt} for e in self.evidence
            ],
            "generated": {**generated, "window": list(self.window)},
        }


@dataclass(frozen=True, slots=True)
class GeneratedQuestions:
    """What a generation run kept, what it counted (``COUNT_NAMES``) and its problems.

    ``problems`` holds a ``Diagnostic`` per failed call (code ``failed``), unusable answer
    (``malformed``) and document without text (``empty``); its ``path`` is the document name.
    """

    questions: tuple[GeneratedQuestion, ...]
    counts: Mapping[str, int]
    problems: tuple[Diagnostic, ...]
    model: str
    prompt_version: str


@dataclass(frozen=True, slots=True)
class _Ask:
    window: Window
    wanted: int
    request: ChatRequest


def generate_questions(
    documents: Sequence[tuple[str, str]],
    client: ChatClient,
    per_document: int,
    *,
    window: int = DEFAULT_WINDOW,
    evidence: EvidenceMode = "sentences",
    seed: int = 0,
) -> GeneratedQuestions:
    """Ask ``client`` for up to ``per_document`` questions per document (module docstring).

    Args:
        documents: ``(name, text)`` pairs; evidence offsets index ``text``.
        client: the chat endpoint, with its answer cache and concurrency.
        per_document: questions wanted per document (``--generate``).
        window: the most characters one request shows the model.
        evidence: ``sentences`` (numbered sentences, exact by construction) or ``excerpts``.
        seed: rotates which windows get the questions that do not divide evenly.

    Raises:
        OptionError: ``per_document``, ``window`` or ``evidence`` is out of range.
    """
    _check(per_document, window, evidence)
    counts: Counter[str] = Counter(documents=len(documents))
    problems: list[Diagnostic] = []
    asks = _plan(documents, per_document, window, evidence, seed, counts, problems)
    counts.update(requests=len(asks), asked=sum(ask.wanted for ask in asks))
    replies = client.ask_all([ask.request for ask in asks])
    kept: list[GeneratedQuestion] = []
    seen: list[frozenset[str]] = []
    skipped = False  # the endpoint's circuit breaker is open: said once, not per window
    for ask, reply in zip(asks, replies, strict=True):
        name, text = documents[ask.window.document]
        counts["cached"] += reply.cached
        items, problem = _read_reply(reply, client)
        if items is None:
            code = "failed" if reply.content is None else "malformed"
            counts[code] += 1
            where = f"{name}: window [{ask.window.start}:{ask.window.end}]"
            if not (reply.skipped and skipped):
                problems.append(Diagnostic(name, code, f"{where}: {problem}"))
            skipped = skipped or reply.skipped
            continue
        counts["proposed"] += len(items)
        taken = 0
        for item in items:
            verdict = _judge(item, text, ask.window, evidence, seen)
            if isinstance(verdict, str):
                counts[verdict] += 1
            elif taken >= ask.wanted:
                counts["surplus"] += 1
            else:
                question, spans, words = verdict
                seen.append(words)
                window_span = (ask.window.start, ask.window.end)
                kept.append(GeneratedQuestion("", question, name, spans, window_span))
                taken += 1
    counts["kept"] = len(kept)
    width = max(3, len(str(len(kept))))
    return GeneratedQuestions(
        questions=tuple(
            dataclasses.replace(question, id=f"q-{number:0{width}d}")
            for number, question in enumerate(kept, start=1)
        ),
        counts={name: counts[name] for name in COUNT_NAMES},
        problems=tuple(problems),
        model=client.spec.model or "",
        prompt_version=_version(evidence),
    )


def write_questions(path: str | Path, questions: GeneratedQuestions) -> None:
    """Write the question file: one JSON object per line, in id order, moved into place whole.

    Each line is ``{"id", "question", "document", "evidence": [{"start", "end", "excerpt"}],
    "generated": {"model", "prompt", "window"}}``; offsets are characters of the document text.
    """
    from ragchunk.sinks.atomic import atomic_writer

    generated: dict[str, JSONValue] = {
        "model": questions.model,
        "prompt": questions.prompt_version,
    }
    with atomic_writer(Path(path)) as handle:
        for question in questions.questions:
            handle.write(json.dumps(question.to_record(generated), ensure_ascii=False) + "\n")


def _plan(
    documents: Sequence[tuple[str, str]],
    per_document: int,
    window: int,
    evidence: str,
    seed: int,
    counts: Counter[str],
    problems: list[Diagnostic],
) -> list[_Ask]:
    """Return the requests to make: one per window that gets a share of the questions."""
    asks: list[_Ask] = []
    for index, (name, text) in enumerate(documents):
        windows = cut_windows(text, window, document=index)
        counts["windows"] += len(windows)
        if not windows:
            problems.append(Diagnostic(name, "empty", f"{name} has no text to ask about"))
            continue
        for win, wanted in zip(windows, allot(len(windows), per_document, seed), strict=True):
            if wanted:
                asks.append(_Ask(win, wanted, _request(text, win, wanted, evidence)))
    return asks


def _check(per_document: int, window: int, evidence: str) -> None:
    if per_document < 1:
        raise OptionError("--generate", f"must be at least 1 (got {per_document})")
    if window < MIN_WINDOW:
        raise OptionError("--window", f"must be at least {MIN_WINDOW} characters (got {window})")
    if evidence not in EVIDENCE_MODES:
        raise OptionError(
            "--evidence", f"must be one of {', '.join(EVIDENCE_MODES)} (got {evidence!r})"
        )


def _version(evidence: str) -> str:
    if evidence == "sentences":
        return prompts.SENTENCES_PROMPT_VERSION
    return prompts.EXCERPTS_PROMPT_VERSION


def _request(text: str, window: Window, wanted: int, evidence: str) -> ChatRequest:
    """Return the request for ``wanted`` questions on ``window``: the data, then the task."""
    many = "question" if wanted == 1 else "questions"
    if evidence == "sentences":
        lines = [
            f"[{number}] {' '.join(text[s:e].split())}"
            for number, (s, e) in enumerate(window.sentences, start=1)
        ]
        user = "Sentences:\n" + "\n".join(lines)
        task = f"Write {wanted} {many} that these sentences answer, with the sentence numbers."
        return ChatRequest(
            prompts.SENTENCES_PROMPT,
            f"{user}\n\n{task}",
            prompts.SENTENCES_SCHEMA,
            prompts.SENTENCES_PROMPT_VERSION,
            name="questions",
        )
    user = f"Text:\n<<<\n{text[window.start : window.end]}\n>>>"
    task = f"Write {wanted} {many} that this text answers, with the passages copied from it."
    return ChatRequest(
        prompts.EXCERPTS_PROMPT,
        f"{user}\n\n{task}",
        prompts.EXCERPTS_SCHEMA,
        prompts.EXCERPTS_PROMPT_VERSION,
        name="questions",
    )


def _read_reply(reply: ChatReply, client: ChatClient) -> tuple[list[Any] | None, str]:
    """Return the answer's question items, or None and why (one phrase naming the endpoint)."""
    endpoint = f"{client.name} {client.url}"
    if reply.content is None:
        return None, reply.error or f"{endpoint} failed"
    content = reply.content
    fenced = _FENCE.match(content)
    try:
        answer = json.loads(fenced.group(1) if fenced else content)
    except (json.JSONDecodeError, RecursionError):
        return None, f"{endpoint} answered invalid JSON"
    if isinstance(answer, dict) and "questions" not in answer and "question" in answer:
        answer = [answer]  # one question given bare
    items = answer.get("questions") if isinstance(answer, dict) else answer
    if not isinstance(items, list):
        return None, f"{endpoint} answered JSON without a list of questions"
    return items, ""


def _judge(
    item: Any, text: str, window: Window, evidence: str, seen: Sequence[frozenset[str]]
) -> tuple[str, tuple[EvidenceSpan, ...], frozenset[str]] | str:
    """Return the question, its evidence and word set, or the count that drops it."""
    if not isinstance(item, dict) or not isinstance(item.get("question"), str):
        return "invalid"
    question = " ".join(item["question"].split())
    words = vetting.words_of(question)
    pieces = item.get(evidence)
    if len(words) < MIN_QUESTION_WORDS or not isinstance(pieces, list):
        return "invalid"
    if not 1 <= len(pieces) <= MAX_EVIDENCE:
        return "invalid"
    if evidence == "sentences":
        spans = vetting.sentence_spans(pieces, window)
    else:
        spans = vetting.excerpt_spans(pieces, text, window)
    if spans is None:
        return "invalid"
    if not spans:
        return "not_found"
    if not vetting.is_related(question, [text[s:e] for s, e in spans]):
        return "unrelated"
    word_set = frozenset(words)
    if vetting.is_duplicate(word_set, seen):
        return "duplicate"
    return question, tuple(EvidenceSpan(s, e, text[s:e]) for s, e in spans), word_set
