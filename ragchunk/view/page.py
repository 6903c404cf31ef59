"""The viewer page: one HTML file with its CSS, script and data inline, and nothing to fetch.

The server-side part is static: the header, each chunking's settings and histogram, empty
containers; the script (``assets/viewer.js``) draws the text, the chunk lists and the records
from the JSON data block (``payload``). Every string from the document or the command line goes
in escaped (``html.escape``, or ``payload.script_json`` inside the data block), so a document
cannot add markup or script to the page; the Content-Security-Policy allows no network at all
and only the page's own inline script and style. The same view gives the same bytes.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import json
import re
import statistics
from html import escape
from importlib import resources
from pathlib import PurePath
from typing import TYPE_CHECKING, Final

from ragchunk.options import option_fields
from ragchunk.view.histogram import histogram_svg
from ragchunk.view.payload import build_payload, chunk_size, script_json, side_label

if TYPE_CHECKING:
    from ragchunk.model import Document
    from ragchunk.view.build import Side, View

# Control characters other than tab and line feed cannot appear in an HTML document, and a
# lone surrogate cannot be written as UTF-8: both become U+FFFD in labels.
_UNWRITABLE: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")
_CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src '{script}'; img-src data:; "
    "form-action 'none'; base-uri 'none'"
)
SIDE_NAMES: Final = ("A", "B")


@functools.cache
def asset(name: str) -> str:
    """Return the text of a file in ``ragchunk/view/assets`` (package data)."""
    return (resources.files("ragchunk.view") / "assets" / name).read_text(encoding="utf-8")


def content_security_policy(script: str) -> str:
    """Return the page's Content-Security-Policy: no request of any kind, no script but ``script``.

    ``script`` is allowed by its hash, so a script that got into the page some other way would
    not run either.
    """
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return _CSP.format(script=f"sha256-{digest}")


def text(value: object) -> str:
    """Return ``value`` as HTML text: escaped, with unwritable characters replaced."""
    return escape(_UNWRITABLE.sub("\ufffd", str(value)), quote=True)


def render_page(view: View, *, index_href: str | None = None) -> str:
    """Return the page of a view that succeeded (``view.document`` is set).

    ``index_href`` links back to the index page of a directory run.

    Raises:
        ValueError: the view has no document (its input failed).
    """
    doc = view.document
    if doc is None:
        raise ValueError(f"{view.source} has no document to show: {view.error}")
    compare = len(view.sides) > 1
    data = script_json(build_payload(doc, view.sides, view.page_images))
    sides = "".join(_side(side, k, compare=compare) for k, side in enumerate(view.sides))
    back = f'<a class="back" href="{text(index_href)}">index</a> ' if index_href else ""
    script = asset("viewer.js")
    return _PAGE.format(
        csp=content_security_policy(script),
        title=text(f"{PurePath(doc.doc_id).name or doc.doc_id} · ragchunk view"),
        style=asset("viewer.css"),
        mode="compare" if compare else "single",
        back=back,
        heading=text(doc.source),
        facts=text(_facts(doc)),
        diagnostics=_diagnostics(view),
        help=_HELP,
        sides=sides,
        data=data,
        script=script,
    )


def _facts(doc: Document) -> str:
    facts = [doc.format, f"{len(doc.text):,} chars", f"{len(doc.sections)} sections"]
    if doc.pages:
        facts.append(f"{len(doc.pages)} pages")
    if doc.has_lines:
        lines = doc.text.count("\n") + 1 if doc.text else 0
        facts.append(f"{lines:,} lines")
    return " · ".join(facts)


def _diagnostics(view: View) -> str:
    if not view.diagnostics:
        return ""
    items = "".join(f"<li>{text(d.message)}</li>" for d in view.diagnostics)
    return f'<details class="warnings"><summary>{len(view.diagnostics)} warnings</summary>' + (
        f"<ul>{items}</ul></details>"
    )


def _side(side: Side, k: int, *, compare: bool) -> str:
    unit = side.recipe.capacity.unit
    sizes = [chunk_size(chunk, unit) for chunk in side.chunks]
    name = f"{SIDE_NAMES[k]}: " if compare else ""
    label = text(name + side_label(side))
    return _SIDE.format(
        k=k,
        label=label,
        settings=_settings(side, sizes),
        histogram=histogram_svg(sizes, unit, side.recipe.limit),
    )


def _settings(side: Side, sizes: list[int]) -> str:
    """Return the run's settings and the sizes' spread as a definition list."""
    recipe = side.recipe
    budget = recipe.capacity
    rows: list[tuple[str, str]] = [
        ("strategy", recipe.strategy.name),
        ("size", f"{budget.size} {budget.unit}"),
        ("limit", "none (unbounded)" if recipe.limit is None else f"{recipe.limit} {budget.unit}"),
        ("overlap", f"{budget.overlap} {budget.unit}"),
    ]
    if recipe.needs_tokens:
        rows.append(("tokenizer", recipe.tokenizer))
    for field in option_fields(type(recipe.options)):
        value = getattr(recipe.options, field.name)
        if value != field.default:
            rows.append((field.name, _value(value)))
        elif value in ((), None, ""):  # "not set": the strategy's own default applies
            rows.append((field.name, "default"))
        else:
            rows.append((field.name, f"{_value(value)} (default)"))
    if recipe.min_size:
        rows.append(("min-size", f"{recipe.min_size} {budget.unit}"))
    if recipe.contextualize:
        rows.append(("contextualize", "on"))
    if recipe.format or recipe.language:
        rows.append(("format", " ".join(filter(None, (recipe.format, recipe.language)))))
    rows.append(("chunks", str(len(sizes))))
    if sizes:
        spread = f"{min(sizes)} / {statistics.median(sizes):g} / {max(sizes)} {budget.unit}"
        rows.append(("min / median / max", spread))
    return "".join(f"<dt>{text(key)}</dt><dd>{text(value)}</dd>" for key, value in rows)


def _value(value: object) -> str:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, tuple):
        value = list(value)
    try:
        return json.dumps(value, ensure_ascii=False)
    except TypeError:
        return str(value)


_HELP: Final = (
    '<dl class="keys">'
    "<dt>j / ↓ · k / ↑</dt><dd>next / previous chunk (↓ ↑ in a chunk list)</dd>"
    "<dt>Home · End</dt><dd>first / last chunk</dd>"
    "<dt>h · l</dt><dd>the left / right chunking (compare)</dd>"
    "<dt>Enter</dt><dd>scroll to the selected chunk</dd>"
    "<dt>Esc</dt><dd>hide the record</dd>"
    "</dl>"
)

_SIDE: Final = """<section class="side" id="side{k}" data-side="{k}" aria-label="{label}">
<div class="panel">
<div class="about">
<h2>{label}</h2>
<details class="settings" open><summary>settings</summary><dl>{settings}</dl></details>
<figure class="histogram">{histogram}</figure>
</div>
<div class="list" role="listbox" tabindex="0" aria-label="Chunks of {label}"></div>
<div class="record" aria-live="polite"></div>
</div>
<div class="text" tabindex="0" role="region" aria-label="Document text, {label}"></div>
<div class="sheets" role="region" aria-label="The selected chunk on its pages, {label}" hidden>
</div>
</section>
"""

_PAGE: Final = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>{title}</title>
<style>
{style}</style>
</head>
<body class="{mode}">
<header>
<h1>{back}<span class="source">{heading}</span></h1>
<p class="facts">{facts}</p>
{diagnostics}
<label class="link" hidden><input type="checkbox" checked> scroll together</label>
<details class="help"><summary>keys</summary>{help}</details>
</header>
<main>
{sides}</main>
<div id="tip" role="tooltip" hidden></div>
<script type="application/json" id="ragchunk-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
