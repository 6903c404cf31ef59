"""email: a message's headers, its body, then its attachments, each parsed by its own format.

The standard library reads the message (modern policy). The text starts with the headers block
(``From``, ``To``, ``Cc``, ``Date``, ``Subject``; a ``headers`` section), then the body:
text/plain when there is one, else the HTML through the HTML parser; a plain body's
paragraphs are ``prose``, ``>`` paragraphs ``quote`` and what follows a ``-- `` line
``signature``. Hard-wrapped prose is reflowed as PDF text is: a line feed that only wraps a
paragraph (the next line's first word would not have fitted on the line, at the body's wrap
width of at most 80 columns; or a ``format=flowed`` soft break) is a space, or with ``--keep
linebreaks`` a line feed listed in ``Document.wraps``; list items, indented lines, quotes and
signatures keep their lines. Each attachment follows under a ``Attachment: NAME`` heading,
parsed by the format its name or type gives (a forwarded message as an e-mail, at most
``MAX_DEPTH`` deep); a ``message/*`` part without a file name (a forwarded ``message/rfc822``
or ``message/news``) is read the same way under ``Forwarded message: SUBJECT``;
one larger than ``--max-bytes``, of no readable format or that fails is left out with a
warning and named in ``metadata.left_out`` (but attachments share the message's ``--max-text``
budget: passing it fails the message). Every section carries ``metadata.part``:
``headers``, ``body``, ``attachment:NAME`` or ``forwarded:N``; the subject is the heading.
Undecodable bytes and unknown charsets, or charsets naming no text encoding (``rot13``,
``zlib``), are replaced with a warning; C1 controls in headers (windows-1252 text labelled
ISO-8859-1) read as windows-1252, as in bodies. Header values are bounded before they are parsed
(``_mailheaders``: length, nested parentheses), and the metadata every chunk carries is capped
(``_metadata``: a long ``To`` list). A warning inside attached messages names their path once:
``m.eml: attachment fwd.eml > report.docx: ...``.
"""

from __future__ import annotations

import email.errors
import itertools
import re
from dataclasses import replace
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import PurePath
from typing import TYPE_CHECKING, Final, cast

from ragchunk import parsers
from ragchunk.errors import CorruptDocumentError, InputError, LimitExceededError
from ragchunk.model import Document
from ragchunk.parsers._budget import TextBudgetError
from ragchunk.parsers._builder import BLOCK_SEPARATOR, TextBuilder
from ragchunk.parsers._decode import charset_problem, text_codec
from ragchunk.parsers._mailheaders import bounded_policy
from ragchunk.parsers._mailtext import is_quote, lines_of, wrap_width, wraps_at
from ragchunk.parsers._metadata import capped
from ragchunk.parsers._spec import MAX_DEPTH, Format

if TYPE_CHECKING:
    from ragchunk.model import JSONValue
    from ragchunk.parsers._spec import ParseRequest

HEADERS: Final = ("From", "To", "Cc", "Date", "Subject")
_C1: Final = re.compile("[\x80-\x9f]")
_LEGACY: Final = {
    "iso-8859-1": "cp1252",
    "latin-1": "cp1252",
    "latin1": "cp1252",
    "us-ascii": "cp1252",
}
_BY_TYPE: Final = {
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/html": "html",
    "text/csv": "csv",
    "text/tab-separated-values": "csv",
    "message/rfc822": "email",
    "application/pdf": "pdf",
}
_HEADER_ERRORS: Final = (
    ValueError,
    IndexError,
    TypeError,
    AttributeError,
    LookupError,
    email.errors.MessageError,
)


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the message's headers, body and attachments as one Document.

    Raises:
        InputError: binary data, or no header at all.
        LimitExceededError: messages nested more than ``MAX_DEPTH`` deep.
    """
    if b"\x00" in data[:8192]:
        raise InputError(f"{request.source}: binary data, not an e-mail (it holds zero bytes)")
    cuts: list[str] = []
    try:
        parsed = BytesParser(policy=bounded_policy(cuts)).parsebytes(data)
        message = cast("EmailMessage", parsed)  # the policy's message_factory: EmailMessage
    except RecursionError:
        raise _too_deep(request) from None
    if not message.keys() and data.strip():
        raise CorruptDocumentError(f"{request.source}: not an e-mail: it has no header lines")
    for cut in cuts:
        request.warn("header-cut", f"{request.source}: {cut}")
    return read_message(message, request)


def read_message(message: EmailMessage, request: ParseRequest) -> Document:
    """Return the Document of a parsed message (attached messages come this way too).

    Raises:
        LimitExceededError: messages nested more than ``MAX_DEPTH`` deep.
    """
    if request.depth > MAX_DEPTH:
        raise _too_deep(request)
    builder = TextBuilder()
    headers = {name: _header(message, name, request) for name in HEADERS}
    subject = headers["Subject"]
    if subject:  # the subject heads the message: it is in the headers block, not a block
        builder.path.enter(1, subject)
    lines = [f"{name}: {value}" for name, value in headers.items() if value]
    if lines:
        builder.add_block("\n".join(lines), "headers", metadata={"part": "headers"})
    left_out: list[JSONValue] = []
    wraps: list[int] = []
    try:
        body = message.get_body(preferencelist=("plain", "html"))
        attachments = list(message.iter_attachments())
    except (*_HEADER_ERRORS, KeyError) as exc:
        raise CorruptDocumentError(
            f"{request.source}: malformed MIME structure (a part's headers cannot be read)"
        ) from exc
    except RecursionError:
        raise _too_deep(request) from None
    if body is not None:
        _add_body(builder, body, request, wraps)  # type: ignore[arg-type]  # default policy
    under = builder.headings()
    for number, part in enumerate(attachments, start=1):
        _add_attachment(builder, under, part, number, request, left_out, wraps)
    metadata = _metadata(message, headers, request)
    if left_out:
        metadata["left_out"] = {"attachments": left_out}
    doc = builder.document(request, "email", capped(metadata))
    return replace(doc, wraps=tuple(sorted(wraps))) if wraps else doc


def _header(message: EmailMessage, name: str, request: ParseRequest) -> str:
    """Return a header's value on one line; a malformed one is read raw, with a warning."""
    try:
        value = message.get(name)
    except _HEADER_ERRORS:
        # the exception's text is the library's, not the user's: it names no fault in the mail
        request.warn("bad-header", f"{request.source}: malformed {name} header read as is")
        value = _raw(message, name)
    text = " ".join(str(value or "").split())
    return _C1.sub(_windows_1252, text)


def _raw(message: EmailMessage, name: str) -> str:
    for key, value in message.raw_items():
        if key.lower() == name.lower():
            return str(value)
    return ""


def _windows_1252(match: re.Match[str]) -> str:
    try:
        return bytes([ord(match.group())]).decode("cp1252")
    except UnicodeDecodeError:
        return match.group()


def _too_deep(request: ParseRequest) -> LimitExceededError:
    return LimitExceededError(
        f"{request.source}: refused: messages or MIME parts nested more than {MAX_DEPTH} deep"
    )


def _text_payload(part: EmailMessage, request: ParseRequest) -> str:
    """Return a text part decoded by its charset; bad bytes are replaced with a warning."""
    raw = part.get_payload(decode=True)
    data = raw if isinstance(raw, bytes) else b""
    if part.defects:
        kinds = ", ".join(sorted({_defect(d) for d in part.defects}))
        request.warn("transfer-encoding", f"{request.source}: damaged part read as is ({kinds})")
    charset = (part.get_content_charset() or "utf-8").lower()
    codec = text_codec(_LEGACY.get(charset, charset))
    if codec is None:
        problem = charset_problem(_LEGACY.get(charset, charset))
        request.warn("unknown-charset", f"{request.source}: {problem}; read as UTF-8")
        codec = "utf-8"
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        request.warn(
            "invalid-encoding",
            f"{request.source}: invalid {charset} from byte {exc.start}; replaced with U+FFFD",
        )
        text = data.decode(codec, errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _defect(defect: object) -> str:
    """Return a defect in words (``InvalidBase64PaddingDefect``: ``invalid base64 padding``)."""
    name = type(defect).__name__.removesuffix("Defect")
    words = re.findall(r"[A-Z]?[a-z]+\d*|[A-Z]+\d*(?![a-z])", name)
    return " ".join(words).lower() or "damage"


def _add_body(
    builder: TextBuilder, body: EmailMessage, request: ParseRequest, wraps: list[int]
) -> None:
    text = _text_payload(body, request)
    if body.get_content_subtype() == "html":
        from ragchunk.parsers.html import parse_text

        doc = parse_text(text, request, format="email")
        path = builder.headings()
        builder.splice(doc, path=path, level=1 if path else 0, metadata={"part": "body"})
        return
    blocks = [lines_of(block) for block in re.split(r"\n[ \t]*\n", text)]
    width = wrap_width(blocks)
    flowed = str(body.get_param("format", "") or "").lower() == "flowed"
    signature = False
    for raw in blocks:
        lines = [line.rstrip() for line in raw]
        if not lines:
            continue
        if lines[0] == "--":
            signature = True
        kind = "signature" if signature else "quote" if is_quote(lines) else "prose"
        if kind != "prose":
            builder.add_block("\n".join(lines), kind, metadata={"part": "body"})
            continue
        joins = [wraps_at(a, b, width, flowed=flowed) for a, b in itertools.pairwise(raw)]
        reflow = request.options.cleans("linebreaks")
        block = lines[0] + "".join(
            (" " if join and reflow else "\n") + line
            for join, line in zip(joins, lines[1:], strict=True)
        )
        start = builder.add_block(block, kind, metadata={"part": "body"})
        if not reflow:
            at = start
            for join, line in zip(joins, lines, strict=False):
                at += len(line)
                if join:
                    wraps.append(at)
                at += 1


def _add_attachment(
    builder: TextBuilder,
    under: tuple[str, ...],
    part: EmailMessage,
    number: int,
    request: ParseRequest,
    left_out: list[JSONValue],
    wraps: list[int],
) -> None:
    """Parse one attachment with its own format and add it; or leave it out with a warning.

    Its heading and its sections go under ``under`` (the subject's path).
    """
    name = _attachment_name(part, number)
    # An attached message's source already names its path: it grows by one step, ` > NAME`.
    where = (
        f"{request.source} > {name}" if request.depth else f"{request.source}: attachment {name}"
    )
    try:
        doc = _read_attachment(part, name, replace(request, source=where, depth=request.depth + 1))
    except TextBudgetError:  # the budget is the whole message's: it fails, not the attachment
        raise
    except InputError as exc:
        reason = str(exc).removeprefix(f"{where}: ")
        request.warn("attachment-left-out", f"{where} left out: {reason}")
        left_out.append(name)
        return
    if doc is None:
        left_out.append(name)
        return
    title = f"Attachment: {name}"
    metadata: dict[str, JSONValue] = {"part": f"attachment:{name}"}
    if _is_message(part) and not part.get_filename():  # forwarded inline, not a file
        subject = str(doc.metadata.get("subject") or "")
        title = f"Forwarded message: {subject or name}"
        metadata = {"part": f"forwarded:{number}"}
        if subject:  # the heading names the subject: it is not repeated below it
            own = tuple(
                replace(s, headings=s.headings[1:]) if s.headings[:1] == (subject,) else s
                for s in doc.sections
            )
            doc = replace(doc, sections=own)
    path = (*under, title)
    builder.add_heading(title, len(path), metadata=metadata)  # it closes the attachment before
    offset = builder.length + len(BLOCK_SEPARATOR)
    builder.splice(doc, path=path, level=len(path), metadata=metadata)
    kept = len(doc.text.rstrip())
    wraps.extend(offset + w for w in doc.wraps if w < kept)


def _is_message(part: EmailMessage) -> bool:
    """A forwarded message (``message/rfc822``, ``message/news``...), parsed as a nested one."""
    return part.get_content_maintype() == "message" and isinstance(part.get_payload(), list)


def _attachment_name(part: EmailMessage, number: int) -> str:
    try:
        name = part.get_filename()
    except _HEADER_ERRORS:
        name = None
    return " ".join(_C1.sub(_windows_1252, name).split()) if name else f"part {number}"


def _read_attachment(part: EmailMessage, name: str, request: ParseRequest) -> Document | None:
    """Return the attachment's Document, or None for one of no readable format (an image).

    Raises:
        InputError: it is larger than ``--max-bytes`` or its parser fails.
    """
    kind = part.get_content_type()
    if _is_message(part):
        inner = part.get_payload()
        message = inner[0] if isinstance(inner, list) and inner else None
        if not isinstance(message, EmailMessage):  # parsed with the default policy, or empty
            raise CorruptDocumentError(f"{request.source}: an empty attached message")
        return read_message(message, request)
    raw = part.get_payload(decode=True)
    data = raw if isinstance(raw, bytes) else b""
    if len(data) > request.max_bytes:
        raise LimitExceededError(
            f"{request.source}: refused: {len(data)} bytes, more than --max-bytes "
            f"{request.max_bytes}"
        )
    fmt = _format(name, kind, data)
    if fmt is None:
        return None
    if fmt in ("text", "markdown", "html", "csv") and part.get_content_maintype() == "text":
        data = _text_payload(part, request).encode("utf-8")
    return parsers.get(fmt).parse(data, request)


def _format(name: str, kind: str, data: bytes) -> str | None:
    """Return the format of an attachment by its name, else its type; None if unreadable."""
    suffix = PurePath(name).suffix.lower()
    if any(suffix in extensions for _, extensions in parsers.FORMATS.values()):
        return parsers.detect(name, data[:1024], data)
    if kind in _BY_TYPE:
        return _BY_TYPE[kind]
    if kind.startswith("text/"):
        return "text"
    detected = parsers.detect("", data[:1024], data)
    return None if detected == "text" else detected


def _metadata(
    message: EmailMessage, headers: dict[str, str], request: ParseRequest
) -> dict[str, JSONValue]:
    metadata: dict[str, JSONValue] = {
        name.lower(): value for name, value in headers.items() if value and name != "Date"
    }
    try:
        date = message["Date"]
        moment = getattr(date, "datetime", None)
    except _HEADER_ERRORS:
        moment = None
    if moment is not None:
        metadata["date"] = moment.isoformat()
    elif headers["Date"]:
        metadata["date"] = headers["Date"]
    message_id = _header(message, "Message-ID", request)
    if message_id:
        metadata["message_id"] = message_id
    return metadata


FORMAT = Format(name="email", parse=parse)
