"""The viewer behind ``ragchunk view``: one self-contained HTML page of a document's chunks.

- ``build``: ``make_view`` parses one input once and chunks it with one recipe, or two to
  compare (``View``, ``Side``); ``make_views`` gives one view per document of a container
  (an mbox's messages).
- ``payload``: what the page's script reads: the text, the pages and every chunk's record, with
  offsets also given in UTF-16 code units, as JavaScript strings count.
- ``histogram``: the size histogram with the limit, as inline SVG.
- ``page``: the page itself: inline CSS and JavaScript (``assets/``), every document string
  escaped, nothing fetched, the same bytes for the same input and options; ``index`` the
  index page of a directory.
"""

from __future__ import annotations

from ragchunk.view.build import Side, View, make_view, make_views
from ragchunk.view.index import IndexEntry, render_index
from ragchunk.view.page import render_page

__all__ = ["IndexEntry", "Side", "View", "make_view", "make_views", "render_index", "render_page"]
