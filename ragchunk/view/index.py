"""The index page of a directory run: one row per input, linking to its page or naming its error."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final
from urllib.parse import quote

from ragchunk.view.page import asset, text
from ragchunk.view.payload import chunk_size, side_label

if TYPE_CHECKING:
    from ragchunk.view.build import View


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One input of the index: its name, its view, and its page's path relative to the index.

    ``name`` is the input's path relative to the directory the index covers; ``href`` is None
    when the input failed.
    """

    name: str
    view: View
    href: str | None


def render_index(title: str, entries: list[IndexEntry], notes: tuple[str, ...] = ()) -> str:
    """Return the index page: each input's format, size and chunk counts, or its error.

    ``notes`` are what the walk left out, one sentence each.
    """
    labels: list[str] = []
    for entry in entries:
        for side in entry.view.sides:
            if side_label(side) not in labels:
                labels.append(side_label(side))
    rows = "".join(_row(entry) for entry in entries)
    failed = sum(entry.view.error is not None for entry in entries)
    summary = f"{len(entries)} inputs" + (f", {failed} failed" if failed else "")
    note_items = "".join(f"<li>{text(note)}</li>" for note in notes)
    return _INDEX.format(
        title=text(f"{title} · ragchunk view"),
        style=asset("viewer.css"),
        heading=text(title),
        summary=text(summary + " · " + " | ".join(labels)),
        rows=rows,
        notes=f'<ul class="notes">{note_items}</ul>' if notes else "",
    )


def _row(entry: IndexEntry) -> str:
    view = entry.view
    name = text(entry.name)
    if entry.href is None or view.document is None:
        return f'<tr class="failed"><td>{name}</td><td colspan="4">{text(view.error)}</td></tr>'
    # A name that is not UTF-8 holds its bad bytes as surrogates: they go back to those bytes.
    link = f'<a href="{text(quote(entry.href, errors="surrogateescape"))}">{name}</a>'
    doc = view.document
    cells = [link, text(doc.format), f"{len(doc.text):,}"]
    counts, spreads = [], []
    for side in view.sides:
        unit = side.recipe.capacity.unit
        sizes = [chunk_size(chunk, unit) for chunk in side.chunks]
        counts.append(str(len(sizes)))
        if sizes:
            spreads.append(f"{min(sizes)} / {statistics.median(sizes):g} / {max(sizes)} {unit}")
        else:
            spreads.append("–")
    cells += [" | ".join(counts), text(" | ".join(spreads))]
    warned = f' title="{len(view.diagnostics)} warnings"' if view.diagnostics else ""
    return f"<tr{warned}>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


_INDEX: Final = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src \
'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>{title}</title>
<style>
{style}</style>
</head>
<body class="index">
<header><h1>{heading}</h1><p class="facts">{summary}</p></header>
<main>
<table>
<thead><tr><th>input</th><th>format</th><th>chars</th><th>chunks</th>\
<th>min / median / max</th></tr></thead>
<tbody>
{rows}</tbody>
</table>
{notes}</main>
</body>
</html>
"""
