"""yaml: a YAML file verbatim, cut between its members (``_keypaths``), read with PyYAML.

PyYAML composes the file (an error names its line and column) and its nodes' marks say where
each key and list item starts; a list item's section starts at its ``-``, and comment lines
right above a key go with it; a top-level key holding a mapping or a list is a heading. An
alias is not followed (its anchor's members were already seen). A file of several documents
(``---``) starts each key path with ``document N``. Needs PyYAML (the ``yaml`` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragchunk.errors import CorruptDocumentError, InputError, LimitExceededError
from ragchunk.parsers._decode import decode
from ragchunk.parsers._keypaths import Member, document, key, sections
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Iterator

    from yaml.nodes import Node

    from ragchunk.model import Document
    from ragchunk.parsers._spec import ParseRequest


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the YAML file verbatim with a ``value`` section per member.

    Raises:
        InputError: binary data, or PyYAML is not installed.
        CorruptDocumentError: not valid YAML (the message names line and column).
        LimitExceededError: nested too deeply to read.
    """
    text = decode(data, request)
    roots = _compose(text, request.source)
    several = len(roots) > 1
    found: list[Member] = []
    for number, root in enumerate(roots, start=1):
        path = (f"document {number}",) if several else ()
        found += _members(root, path, len(path) + 1)
    return document(text, request, "yaml", sections(text, found, comment="#"), {})


def _compose(text: str, source: str) -> list[Node]:
    try:
        import yaml
    except ImportError:
        raise InputError(
            f"{source}: reading YAML needs PyYAML: pip install 'ragchunk[yaml]'"
        ) from None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return [root for root in yaml.compose_all(text, Loader=loader) if root is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or "not YAML"
        raise CorruptDocumentError(f"{source}: invalid YAML{where}: {problem}") from None
    except yaml.YAMLError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CorruptDocumentError(f"{source}: invalid YAML: {reason}") from None
    except RecursionError:
        raise LimitExceededError(f"{source}: YAML nested too deeply to read") from None


def _members(root: Node, path: tuple[str, ...], top: int) -> Iterator[Member]:
    """Yield the members under ``root`` in document order, the root first (no recursion).

    A key of the root mapping (its path ``top`` long) holding a container is a heading.
    """
    from yaml.nodes import MappingNode

    yield Member(root.start_mark.index, path)
    seen = {id(root)}
    stack = [_children(root, path)]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        member, value = item
        if value is not None and len(member.path) == top and isinstance(root, MappingNode):
            member = Member(member.start, member.path, member.first, heading=True)
        yield member
        if value is not None and id(value) not in seen:  # an alias is not followed
            seen.add(id(value))
            stack.append(_children(value, member.path))


def _children(node: Node, own: tuple[str, ...]) -> Iterator[tuple[Member, Node | None]]:
    """Yield a container's members, each with its value when that is a container."""
    from yaml.nodes import MappingNode, SequenceNode

    if isinstance(node, MappingNode):
        items = [
            (name.start_mark.index, value, key(str(name.value)) if name.tag else "?")
            for name, value in node.value
        ]
    elif isinstance(node, SequenceNode):
        items = [(item.start_mark.index, item, str(i)) for i, item in enumerate(node.value)]
    else:
        return
    for position, (start, value, label) in enumerate(items):
        container = isinstance(value, MappingNode | SequenceNode)
        child = (*own, label)
        yield (
            Member(start, child if container else own, position == 0),
            (value if container else None),
        )


FORMAT = Format(name="yaml", parse=parse)
