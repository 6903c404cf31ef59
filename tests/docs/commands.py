"""The fenced ``ragchunk`` commands of README.md and docs/*.md, and what each fence needs.

A command is a line of a shell fence (```` ```sh ````, ``bash``, ``console``, ``shell``) that
starts with ``ragchunk `` (a line ending in ``\\`` goes on on the next). An HTML comment on the
line right above a fence, invisible on GitHub and on the site, says more about it::

    <!-- docs: needs=chat,local-model exit=2 file=NAME -->

- ``file=NAME``: the fence is an example file (a ``ragchunk.toml``, a question file): the test
  writes its text to ``NAME`` in the working directory, at that point of the page.
- ``exit=N``: every command of the fence must exit with ``N`` (a bad-input example); default 0.
- ``needs=A,B``: the services its commands need, each run against a local stand-in (see
  ``tests/docs/test_commands.py``): ``chat``, ``embeddings``, ``local-model``, ``ray``,
  ``browser``, ``tesseract``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent.parent
PAGES: Final = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
SHELL_FENCES: Final = frozenset({"sh", "bash", "console", "shell"})
NEEDS: Final = frozenset({"chat", "embeddings", "local-model", "ray", "browser", "tesseract"})

_FENCE: Final = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
_DIRECTIVE: Final = re.compile(r"^<!--\s*docs:(.*?)-->\s*$")


@dataclass(frozen=True)
class Fence:
    """One fenced block of a page: its language, its text and its directive."""

    page: str
    line: int
    language: str
    text: str
    needs: frozenset[str] = frozenset()
    exit_code: int = 0
    file: str | None = None

    @property
    def commands(self) -> list[str]:
        """The ``ragchunk`` command lines of a shell fence (continuations joined)."""
        if self.language not in SHELL_FENCES or self.file is not None:
            return []
        lines: list[str] = []
        pending = ""
        for raw in self.text.splitlines():
            if raw.rstrip().endswith("\\"):
                pending += raw.rstrip()[:-1] + " "
                continue
            lines.append(pending + raw)
            pending = ""
        return [line.strip() for line in lines if line.strip().startswith("ragchunk ")]


@dataclass
class Page:
    """A page's fences in document order."""

    path: Path
    fences: list[Fence] = field(default_factory=list)

    @property
    def name(self) -> str:
        if self.path.is_relative_to(ROOT):
            return self.path.relative_to(ROOT).as_posix()
        return self.path.name

    def groups(self) -> list[frozenset[str]]:
        """The distinct ``needs`` of the page's command fences, in order of first appearance."""
        seen: list[frozenset[str]] = []
        for fence in self.fences:
            if fence.commands and fence.needs not in seen:
                seen.append(fence.needs)
        return seen


def _directive(line: str, where: str) -> dict[str, str]:
    match = _DIRECTIVE.match(line.strip())
    if match is None:
        return {}
    pairs: dict[str, str] = {}
    for item in match.group(1).split():
        key, sep, value = item.partition("=")
        if not sep or key not in {"needs", "exit", "file"}:
            raise ValueError(f"{where}: bad docs directive {item!r}")
        pairs[key] = value
    unknown = set(filter(None, pairs.get("needs", "").split(","))) - NEEDS
    if unknown:
        raise ValueError(f"{where}: unknown needs {sorted(unknown)}")
    return pairs


def read_page(path: Path) -> Page:
    """Parse one Markdown page's fences and their directives."""
    page = Page(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        marker, language = opening.group(1), opening.group(2)
        where = f"{page.name}:{index + 1}"
        directive = _directive(lines[index - 1], where) if index else {}
        end = index + 1
        while end < len(lines) and not lines[end].startswith(marker):
            end += 1
        page.fences.append(
            Fence(
                page=page.name,
                line=index + 1,
                language=language,
                text="\n".join(lines[index + 1 : end]) + "\n",
                needs=frozenset(filter(None, directive.get("needs", "").split(","))),
                exit_code=int(directive.get("exit", "0")),
                file=directive.get("file"),
            )
        )
        index = end + 1
    return page


def needs_a_shell(command: str) -> bool:
    """Whether ``command`` uses the shell (a pipe, a redirection, ``&&``, a glob, ``$``)."""
    quote = ""
    for char in command:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            return False  # a comment: nothing after it counts
        elif char in "|&;<>*?[$`(":
            return True
    return False
