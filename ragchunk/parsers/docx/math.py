"""Office Math (OMML) as a readable linear text, in the spirit of UnicodeMath.

A fraction reads ``(a+b)/c``, sub- and superscripts ``x_i`` and ``x^2``, a radical ``√(x)``
(``∛``-style degrees as ``√[3](x)``), an n-ary operator ``∑_(i=1)^n x_i``, delimiters with
their own characters, a bar or accent as a combining mark on one character (``x̄``), a function
``sin⁡x``; anything else reads as its children in order. Parentheses group what is longer than
one letter or number. The text is built from the equation's own runs: nothing is dropped, and
no empty gap is left in a sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

M: Final = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
W: Final = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_COMBINING: Final = {"\u00af": "\u0304", "\u0302": "\u0302", "^": "\u0302", "~": "\u0303"}
_FUNCTION: Final = "\u2061"
MAX_DEPTH: Final = 64
"""Deeper nesting reads as plain text (a hostile equation cannot exhaust the stack)."""


def linear(element: Any, depth: int = 0) -> str:
    """Return the linear text of an ``m:oMath``, ``m:oMathPara`` or any math element."""
    if depth > MAX_DEPTH:
        return "".join(element.itertext())
    tag = element.tag
    if tag == M + "oMathPara":
        return "\n".join(linear(child, depth + 1) for child in element if child.tag == M + "oMath")
    if tag in (M + "t", W + "t"):
        return str(element.text or "")
    handler = _HANDLERS.get(tag)
    if handler is not None:
        return handler(element, depth + 1)
    return "".join(linear(child, depth + 1) for child in element if not _is_property(child))


def _is_property(element: Any) -> bool:
    tag = element.tag
    return isinstance(tag, str) and tag.endswith("Pr") and tag.startswith((M, W))


def _part(element: Any, name: str, depth: int) -> str:
    child = element.find(M + name)
    return "" if child is None else linear(child, depth)


def _group(text: str) -> str:
    """Return ``text`` as one operand: bare when one letter or number, else in parentheses."""
    return text if text.isalnum() and (len(text) == 1 or text.isdigit()) else f"({text})"


def _chr(element: Any, property_name: str, default: str) -> str:
    found = element.find(f"{M}{property_name}/{M}chr")
    if found is None:
        return default
    return str(found.get(M + "val", default))


def _fraction(element: Any, depth: int) -> str:
    return f"{_group(_part(element, 'num', depth))}/{_group(_part(element, 'den', depth))}"


def _scripts(element: Any, depth: int) -> str:
    base = _part(element, "e", depth)
    sub, sup = _part(element, "sub", depth), _part(element, "sup", depth)
    text = base
    if sub:
        text += "_" + _group(sub)
    if sup:
        text += "^" + _group(sup)
    return text


def _pre_scripts(element: Any, depth: int) -> str:
    sub, sup = _part(element, "sub", depth), _part(element, "sup", depth)
    return f"_{_group(sub)}^{_group(sup)}{_part(element, 'e', depth)}"


def _radical(element: Any, depth: int) -> str:
    degree = _part(element, "deg", depth)
    body = _part(element, "e", depth)
    return f"√[{degree}]({body})" if degree else f"√({body})"


def _nary(element: Any, depth: int) -> str:
    operator = _chr(element, "naryPr", "\u222b")
    sub, sup = _part(element, "sub", depth), _part(element, "sup", depth)
    text = operator + (f"_{_group(sub)}" if sub else "") + (f"^{_group(sup)}" if sup else "")
    return f"{text} {_part(element, 'e', depth)}"


def _delimiters(element: Any, depth: int) -> str:
    properties = element.find(M + "dPr")
    begin, end, separator = "(", ")", "|"
    if properties is not None:
        for name, default in (("begChr", "("), ("endChr", ")"), ("sepChr", "|")):
            found = properties.find(M + name)
            value = default if found is None else str(found.get(M + "val", ""))
            if name == "begChr":
                begin = value
            elif name == "endChr":
                end = value
            else:
                separator = value
    items = [linear(child, depth) for child in element.findall(M + "e")]
    return begin + separator.join(items) + end


def _mark(element: Any, depth: int, mark: str) -> str:
    body = _part(element, "e", depth)
    combining = _COMBINING.get(mark, mark)
    if len(body) == 1:
        return body + combining
    return f"{body}{mark}" if mark else body


def _bar(element: Any, depth: int) -> str:
    return _mark(element, depth, "\u00af")


def _accent(element: Any, depth: int) -> str:
    return _mark(element, depth, _chr(element, "accPr", "\u0302"))


def _function(element: Any, depth: int) -> str:
    return _part(element, "fName", depth) + _FUNCTION + _part(element, "e", depth)


def _limit(element: Any, depth: int, mark: str) -> str:
    return f"{_part(element, 'e', depth)}{mark}{_group(_part(element, 'lim', depth))}"


def _rows(element: Any, depth: int) -> str:
    return "; ".join(linear(child, depth) for child in element.findall(M + "e"))


def _matrix(element: Any, depth: int) -> str:
    rows = [
        ", ".join(linear(cell, depth) for cell in row.findall(M + "e"))
        for row in element.findall(M + "mr")
    ]
    return "[" + "; ".join(rows) + "]"


_HANDLERS: Final[dict[str, Callable[[Any, int], str]]] = {
    M + "f": _fraction,
    M + "sSub": _scripts,
    M + "sSup": _scripts,
    M + "sSubSup": _scripts,
    M + "sPre": _pre_scripts,
    M + "rad": _radical,
    M + "nary": _nary,
    M + "d": _delimiters,
    M + "bar": _bar,
    M + "acc": _accent,
    M + "func": _function,
    M + "limLow": lambda element, depth: _limit(element, depth, "_"),
    M + "limUpp": lambda element, depth: _limit(element, depth, "^"),
    M + "eqArr": _rows,
    M + "m": _matrix,
}
