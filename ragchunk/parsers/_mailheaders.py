"""E-mail headers bounded before the standard library parses them (``email.policy``).

The standard library's header parser is quadratic in time on address lists (a 2.3 MB ``To``:
minutes) and in memory on encoded words (a 420 KB ``Subject``: gigabytes), and recursive on
comments (20,000 nested parentheses: ``RecursionError``). ``BoundedPolicy`` cuts each header
value as it is read: at most ``MAX_HEADER_CHARS`` characters (at a space or comma, so no
address or encoded word is split), and parentheses nested deeper than ``MAX_HEADER_NESTING``
dropped. Each cut is noted in ``cuts`` for the parser's warning.
"""

from __future__ import annotations

from email.policy import EmailPolicy
from typing import Final

MAX_HEADER_CHARS: Final = 16 * 1024
"""The most characters of one header value that are parsed; the rest is left out, warned."""
MAX_HEADER_NESTING: Final = 32
"""The deepest parentheses (comments) of a header kept; deeper ones are dropped, warned."""


class BoundedPolicy(EmailPolicy):
    """The default modern policy, with every header value bounded as it is read.

    ``cuts`` (one list per message parsed: ``bounded_policy``) receives one sentence per
    header cut. Attached messages are read with the same policy.
    """

    cuts: list[str] | None = None

    def header_source_parse(self, sourcelines: list[str]) -> tuple[str, str]:
        """Return a header's name and its value, bounded (see the module docstring)."""
        name, value = super().header_source_parse(sourcelines)
        if len(value) > MAX_HEADER_CHARS:
            kept = _cut(value)
            self._note(
                f"the {name} header holds {len(value)} characters; only its first "
                f"{len(kept)} were read (limit {MAX_HEADER_CHARS})"
            )
            value = kept
        if "(" in value:
            flattened, depth = _flatten(value)
            if depth > MAX_HEADER_NESTING:
                self._note(
                    f"the {name} header nests parentheses {depth} deep; those past "
                    f"{MAX_HEADER_NESTING} levels were dropped"
                )
                value = flattened
        return name, value

    def _note(self, cut: str) -> None:
        if self.cuts is not None:
            self.cuts.append(cut)


def bounded_policy(cuts: list[str]) -> BoundedPolicy:
    """Return the policy one message is parsed with; a sentence per header cut goes to ``cuts``."""
    policy = BoundedPolicy()
    object.__setattr__(policy, "cuts", cuts)  # a policy's fields are read-only once it is made
    return policy


def _cut(value: str) -> str:
    """Return the first ``MAX_HEADER_CHARS`` characters of ``value``, ending at a separator."""
    kept = value[:MAX_HEADER_CHARS]
    at = max(kept.rfind(" "), kept.rfind(","), kept.rfind("\t"), kept.rfind("\n"))
    if at > MAX_HEADER_CHARS // 2:
        kept = kept[:at]
    return kept.rstrip(" ,\t\r\n")


def _flatten(value: str) -> tuple[str, int]:
    """Return ``value`` without parentheses nested past ``MAX_HEADER_NESTING``, and its depth.

    A backslash escapes the next character, as in a comment (RFC 5322 §3.2.2).
    """
    kept: list[str] = []
    depth = deepest = 0
    escaped = False
    for char in value:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
            if depth > MAX_HEADER_NESTING:
                continue
        elif char == ")" and depth > 0:
            depth -= 1
            if depth >= MAX_HEADER_NESTING:
                continue
        kept.append(char)
    return "".join(kept), deepest
