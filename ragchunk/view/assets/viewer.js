/* ragchunk view: draws the document with its chunks, the chunk lists and the records.
 *
 * Everything comes from the JSON block #ragchunk-data; document strings only ever reach the
 * page through text nodes and textContent, never as markup. Offsets here are UTF-16 code
 * units (the data gives every span in them); records keep their code-point offsets for display.
 *
 * The text is drawn once per chunking, in order: a chunk is one element holding its whole text.
 * Text an earlier chunk already showed (the overlap) sits in the element as a hidden copy
 * (.echo), and where it is shown, inside the earlier chunk, it is hatched (.ov). Text in no chunk
 * is a .gap. Large documents are drawn lazily, in blocks of whole chunks, when a block nears the
 * viewport; copying always gives the document's own text for the selection.
 */
(() => {
  "use strict";

  const DATA = JSON.parse(document.getElementById("ragchunk-data").textContent);
  const TEXT = DATA.text;
  const PAGES = DATA.pages;
  const BLOCK = 16384; // text per lazily drawn block, about (UTF-16 units)
  const EAGER = 262144; // documents up to this long are drawn at once
  const ROW = 40; // height of a chunk list row, px (--row in the CSS)
  const TIP_CHARS = 240; // long values are cut in the tooltip, shown whole in the panel
  const ORDER = ["id", "index", "span", "chars", "tokens", "time", "lines", "pages", "headings",
    "strategy", "metadata", "context", "parent_id", "doc_hash", "hash", "text", "doc_id",
    "source"];
  const SHEETS = DATA.sheets || null; // a PDF's pages: [width, height, image] (points)
  const MAX_SHEETS = 3; // pages of one chunk drawn at most
  const offsetOf = new WeakMap(); // text node -> its UTF-16 offset in TEXT
  const sides = [];
  const tip = document.getElementById("tip");
  let active = 0;

  function make(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function textNode(a, b) {
    const node = document.createTextNode(TEXT.slice(a, b));
    offsetOf.set(node, a);
    return node;
  }

  function range(first, last) {
    // "3" or "3–5"; "" when the record has no such numbers.
    if (first === undefined || first === null) return "";
    return first === last ? `${first}` : `${first}–${last}`;
  }

  function clock(seconds) {
    // 75.5 -> "1:15.500", 3723 -> "1:02:03.000": a media player's time.
    const ms = Math.round(seconds * 1000);
    const h = Math.floor(ms / 3600000);
    const m = Math.floor((ms % 3600000) / 60000);
    const s = ((ms % 60000) / 1000).toFixed(3).padStart(6, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
  }

  function times(record) {
    // "0:04.000–0:09.500" for a transcript's chunk; "" for others.
    if (record.timestamp_start === undefined) return "";
    return `${clock(record.timestamp_start)}–${clock(record.timestamp_end)}`;
  }

  function where(record) {
    // "0:04.000–0:09.500" (a transcript), "page 2", "pages 2–3", "line 4" or "lines 4–9".
    if (record.timestamp_start !== undefined) return times(record);
    const [first, last, word] = record.page_start !== undefined
      ? [record.page_start, record.page_end, "page"]
      : [record.line_start, record.line_end, "line"];
    if (first === undefined) return "";
    return `${word}${first === last ? "" : "s"} ${range(first, last)}`;
  }

  // ---- layout: what each chunking draws, in order, and in which blocks ----

  function layout(side) {
    const spans = side.spans;
    const items = []; // {i, a, b, v}: chunk i shown from v (its start, or past an overlap)
    const firstItem = new Int32Array(spans.length); // the item where chunk i's start is drawn
    let shown = 0;
    for (let i = 0; i < spans.length; i++) {
      const [a, b] = spans[i];
      if (a > shown) {
        items.push({ gap: true, a: shown, b: a, v: shown });
        shown = a;
      }
      const v = Math.max(a, shown);
      firstItem[i] = a >= v ? items.length : drawnAt(items, a);
      items.push({ i, a, b, v });
      shown = Math.max(shown, b);
    }
    if (shown < TEXT.length || items.length === 0) {
      items.push({ gap: true, a: shown, b: TEXT.length, v: shown });
    }
    side.items = items;
    side.firstItem = firstItem;
    side.blocks = blocksOf(items);
    side.blockOf = new Int32Array(items.length);
    side.blocks.forEach((block, k) => {
      for (let t = block.from; t < block.to; t++) side.blockOf[t] = k;
    });
  }

  function end(item) {
    return Math.max(item.b, item.v);
  }

  function drawnAt(items, offset) {
    // The last chunk item whose shown part starts at or before offset.
    let low = 0;
    let high = items.length - 1;
    let found = high;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (items[mid].v <= offset) {
        found = mid;
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    while (found > 0 && items[found].gap) found--;
    return found;
  }

  function blocksOf(items) {
    // Blocks end after an item whose text ends a line where possible, so that drawing a block
    // as its own box breaks no line that the document does not break.
    const blocks = [];
    let from = 0;
    let size = 0;
    for (let t = 0; t < items.length; t++) {
      const item = items[t];
      size += end(item) - item.v;
      const atLine = end(item) > 0 && TEXT.charCodeAt(end(item) - 1) === 10;
      if ((size >= BLOCK && atLine) || size >= 4 * BLOCK || t === items.length - 1) {
        blocks.push({ from, to: t + 1, a: items[from].v, b: end(item), drawn: false, node: null });
        from = t + 1;
        size = 0;
      }
    }
    return blocks;
  }

  // ---- drawing the text ----

  function register(side, i, node, at) {
    node.at = at;
    (side.els[i] || (side.els[i] = [])).push(node);
    if (side.sel === i) node.classList.add("sel");
  }

  function drawText(parent, a, b) {
    // Text of [a, b) with page marks where pages start.
    if (!PAGES.length) {
      parent.append(textNode(a, b));
      return;
    }
    let from = a;
    for (const [number, start] of PAGES) {
      if (start < a || start >= b) continue;
      if (start > from) parent.append(textNode(from, start));
      const mark = make("span", "pg");
      mark.dataset.page = number;
      mark.setAttribute("aria-hidden", "true");
      parent.append(mark);
      from = start;
    }
    if (b > from) parent.append(textNode(from, b));
  }

  function drawGap(item) {
    const gap = make("span", "gap");
    if (/\S/.test(TEXT.slice(item.a, item.b))) {
      gap.classList.add("lost");
      gap.dataset.lost = "1";
    }
    drawText(gap, item.a, item.b);
    return gap;
  }

  function headingsOf(record) {
    return (record.headings || []).join(" › ");
  }

  function drawChunk(side, item) {
    const i = item.i;
    const record = side.records[i];
    const node = make("span", `chunk c${i % 2}`);
    node.id = `s${side.k}-c${i}`;
    node.dataset.index = i;
    node.dataset.start = record.start;
    node.dataset.end = record.end;
    register(side, i, node, item.a >= item.v ? item.a : Infinity);
    if (item.a < item.v) {
      const echo = make("span", "echo");
      echo.setAttribute("aria-hidden", "true");
      echo.append(textNode(item.a, Math.min(item.b, item.v)));
      node.append(echo);
    }
    const path = headingsOf(record);
    if (item.b > item.v && path && (i === 0 || path !== headingsOf(side.records[i - 1]))) {
      // The heading path in the margin: its parents on one line, the last heading below.
      // Drawn by CSS from attributes, so that the chunk's own text stays its only text.
      const headings = record.headings;
      const note = make("span", "hn");
      const line = (className, text) => {
        const part = make("span", className);
        part.dataset.text = text;
        note.append(part);
      };
      if (headings.length > 1) line("up", headings.slice(0, -1).join(" › "));
      line("at", headings[headings.length - 1]);
      note.title = path;
      note.setAttribute("aria-hidden", "true");
      node.append(note);
    }
    // Cut the shown part where later chunks start or end: those pieces are overlaps.
    const cuts = new Set([item.v, item.b]);
    const later = [];
    for (let j = i + 1; j < side.spans.length && side.spans[j][0] < item.b; j++) {
      const [a, b] = side.spans[j];
      if (b <= item.v) continue;
      later.push(j);
      if (a > item.v) cuts.add(a);
      if (b < item.b) cuts.add(b);
    }
    const points = [...cuts].sort((x, y) => x - y);
    for (let p = 0; p + 1 < points.length; p++) {
      const [a, b] = [points[p], points[p + 1]];
      const over = later.filter((j) => side.spans[j][0] <= a && side.spans[j][1] >= b);
      if (!over.length) {
        drawText(node, a, b);
        continue;
      }
      const piece = make("span", "ov");
      piece.dataset.with = over.join(" ");
      drawText(piece, a, b);
      node.append(piece);
      for (const j of over) register(side, j, piece, a);
    }
    return node;
  }

  function drawBlock(side, k) {
    const block = side.blocks[k];
    if (block.drawn) return;
    block.drawn = true;
    const nodes = [];
    for (let t = block.from; t < block.to; t++) {
      const item = side.items[t];
      nodes.push(item.gap ? drawGap(item) : drawChunk(side, item));
    }
    block.node.replaceChildren(...nodes);
    block.node.classList.remove("todo");
    block.node.style.height = "";
    if (side.observer) side.observer.unobserve(block.node);
  }

  function measure(pane) {
    // Character width, line height and width of the text, to size blocks not drawn yet.
    const box = make("div", "blk");
    const probe = make("span", "", "0".repeat(64));
    box.append(probe);
    pane.append(box);
    const width = probe.getBoundingClientRect().width / 64 || 8;
    const line = parseFloat(getComputedStyle(pane).lineHeight) || 20;
    const style = getComputedStyle(box);
    const inner = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    pane.removeChild(box);
    return { line, columns: Math.max(20, Math.floor(inner / width)) };
  }

  function estimate(block, metrics) {
    let lines = 0;
    let from = block.a;
    while (from < block.b) {
      let next = TEXT.indexOf("\n", from);
      if (next < 0 || next >= block.b) next = block.b;
      lines += Math.max(1, Math.ceil((next - from) / metrics.columns));
      from = next + 1;
    }
    return Math.max(1, lines) * metrics.line;
  }

  function drawPane(side) {
    const pane = side.pane;
    const lazy = TEXT.length > EAGER;
    const metrics = lazy ? measure(pane) : null;
    const boxes = side.blocks.map((block, k) => {
      const box = make("div", "blk");
      box.dataset.block = k;
      box.dataset.start = block.a;
      block.node = box;
      if (lazy) {
        box.classList.add("todo");
        box.style.height = `${estimate(block, metrics)}px`;
      }
      return box;
    });
    pane.replaceChildren(...boxes);
    if (!lazy) {
      side.blocks.forEach((_, k) => drawBlock(side, k));
      return;
    }
    side.observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) drawBlock(side, Number(entry.target.dataset.block));
        }
      },
      { root: pane, rootMargin: "1500px 0px" },
    );
    boxes.forEach((box) => side.observer.observe(box));
  }

  // ---- records: the tooltip and the selected chunk's panel ----

  function fields(record) {
    const shown = { ...record };
    shown.span = `${record.start}–${record.end}`;
    if (record.line_start !== undefined) shown.lines = range(record.line_start, record.line_end);
    if (record.page_start !== undefined) shown.pages = range(record.page_start, record.page_end);
    if (record.timestamp_start !== undefined) shown.time = times(record);
    for (const key of ["start", "end", "line_start", "line_end", "page_start", "page_end",
      "timestamp_start", "timestamp_end"]) {
      delete shown[key];
    }
    const keys = ORDER.filter((key) => key in shown);
    for (const key of Object.keys(shown).sort()) if (!keys.includes(key)) keys.push(key);
    return keys.map((key) => [key, shown[key]]);
  }

  function recordView(side, i, brief) {
    // A chunk's record. Brief (the tooltip): what tells chunks apart, long values cut; the
    // page header already names doc_id and source. Whole (the panel): every field.
    const box = make("div", "rec");
    const name = sides.length > 1 ? ` (${"AB"[side.k]})` : "";
    box.append(make("h3", "", `chunk ${i}${name}: ${side.sizes[i]} ${side.unit}`));
    const list = make("dl");
    for (const [key, value] of fields(side.records[i])) {
      if (brief && ["index", "doc_id", "source"].includes(key)) continue;
      let shown = typeof value === "string" ? value : JSON.stringify(value, null, brief ? 0 : 1);
      if (key === "headings") shown = value.join(" › ") || "(none)";
      if (brief && shown.length > TIP_CHARS) {
        shown = `${shown.slice(0, TIP_CHARS)}… (${shown.length} chars)`;
      }
      list.append(make("dt", "", key), make("dd", "", shown));
    }
    box.append(list);
    return box;
  }

  function showTip(nodes, x, y) {
    tip.replaceChildren(...nodes);
    tip.hidden = false;
    const width = tip.offsetWidth;
    const height = tip.offsetHeight;
    const left = x + 16 + width > innerWidth ? Math.max(4, x - 16 - width) : x + 16;
    const top = y + 16 + height > innerHeight ? Math.max(4, innerHeight - height - 4) : y + 16;
    tip.style.left = `${left}px`;
    tip.style.top = `${top}px`;
  }

  function hideTip() {
    tip.hidden = true;
  }

  function hoverText(side, event) {
    const target = event.target instanceof Element ? event.target : null;
    const piece = target && target.closest(".ov, .chunk, .gap");
    if (!piece || !side.pane.contains(piece)) {
      hideTip();
      return;
    }
    if (piece.classList.contains("gap")) {
      if (!piece.dataset.lost) return hideTip();
      showTip([make("div", "rec", "This text is in no chunk.")], event.clientX, event.clientY);
      return;
    }
    const owner = piece.closest(".chunk");
    const chunks = [Number(owner.dataset.index)];
    if (piece.classList.contains("ov")) chunks.push(...piece.dataset.with.split(" ").map(Number));
    const views = chunks.map((i) => recordView(side, i, true));
    if (chunks.length > 1) {
      views.unshift(make("div", "", `overlap of chunks ${chunks.join(" and ")}`));
    }
    showTip(views, event.clientX, event.clientY);
  }

  // ---- the chunk list (only the rows in view exist) ----

  function flags(record) {
    // Metadata set to true (oversize_split, oversize...) warn; a kind only names the chunk.
    const meta = record.metadata || {};
    const warnings = Object.keys(meta).sort().filter((key) => meta[key] === true);
    return { warnings, kind: typeof meta.kind === "string" ? meta.kind : "" };
  }

  function drawRow(side, i) {
    const record = side.records[i];
    const row = make("div", `row c${i % 2}`);
    row.id = `s${side.k}-r${i}`;
    row.dataset.index = i;
    row.setAttribute("role", "option");
    row.setAttribute("aria-selected", String(side.sel === i));
    row.setAttribute("aria-setsize", String(side.spans.length));
    row.setAttribute("aria-posinset", String(i + 1));
    row.style.top = `${i * ROW}px`;
    row.append(make("span", "ri", `#${i}`), make("span", "rs", `${side.sizes[i]} ${side.unit}`),
      make("span", "rw", where(record)));
    const marks = flags(record);
    if (marks.kind) row.append(make("span", "rf", marks.kind));
    if (side.limit) {
      const bar = make("span", "bar");
      const fill = make("i", side.sizes[i] > side.limit ? "over" : "");
      fill.style.width = `${Math.min(100, (100 * side.sizes[i]) / side.limit)}%`;
      bar.append(fill);
      row.append(bar);
    }
    // Second line: warnings first (they must not be cut off), then the heading path.
    const second = make("div", "rh");
    if (marks.warnings.length) second.append(make("span", "rf warn", marks.warnings.join(" ")));
    second.append(make("span", "heads", headingsOf(record) || "\u00a0"));
    row.append(second);
    return row;
  }

  function drawRows(side, force) {
    const list = side.list;
    const count = side.spans.length;
    const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 4);
    const last = Math.min(count, Math.ceil((list.scrollTop + list.clientHeight) / ROW) + 4);
    if (!force && first === side.rowFirst && last === side.rowLast) return;
    side.rowFirst = first;
    side.rowLast = last;
    const rows = [];
    for (let i = first; i < last; i++) rows.push(drawRow(side, i));
    side.rows.replaceChildren(...rows);
  }

  // ---- selection, keyboard and scrolling ----

  function drawFor(side, i) {
    // The blocks holding chunk i: where its start is shown, and its own element.
    drawBlock(side, side.blockOf[side.firstItem[i]]);
    drawBlock(side, side.blockOf[side.ownItem[i]]);
  }

  function reveal(side, i) {
    drawFor(side, i);
    const nodes = side.els[i] || [];
    const target = nodes.reduce((best, node) => (!best || node.at < best.at ? node : best), null);
    if (!target) return;
    const tall = target.getBoundingClientRect().height > side.pane.clientHeight * 0.7;
    target.scrollIntoView({ block: tall ? "start" : "center", inline: "nearest" });
  }

  function keepRowInView(side, i) {
    const list = side.list;
    const top = i * ROW;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + ROW > list.scrollTop + list.clientHeight) {
      list.scrollTop = top + ROW - list.clientHeight;
    }
    drawRows(side, true);
  }

  function select(side, i, scroll) {
    const count = side.spans.length;
    if (!count) return;
    i = Math.max(0, Math.min(count - 1, i));
    if (side.sel >= 0) for (const node of side.els[side.sel] || []) node.classList.remove("sel");
    side.sel = i;
    active = side.k;
    drawFor(side, i);
    for (const node of side.els[i] || []) node.classList.add("sel");
    side.list.setAttribute("aria-activedescendant", `s${side.k}-r${i}`);
    keepRowInView(side, i);
    side.record.replaceChildren(recordView(side, i, false));
    drawSheets(side, i);
    if (scroll) reveal(side, i);
  }

  // ---- a PDF chunk's boxes, drawn over its pages ----

  function drawSheets(side, i) {
    const record = side.records[i];
    if (!SHEETS || record.page_start === undefined) return;
    const nodes = [];
    const last = Math.min(record.page_end, record.page_start + MAX_SHEETS - 1);
    for (let p = record.page_start; p <= last; p++) {
      const [width, height, image] = SHEETS[p - 1];
      const sheet = make("div", "sheet");
      sheet.dataset.page = p;
      sheet.style.aspectRatio = `${width} / ${height}`;
      if (image) {
        const img = document.createElement("img");
        img.alt = `page ${p}`;
        img.src = image;
        sheet.append(img);
      }
      for (const { page, x0, y0, x1, y1 } of record.boxes || []) {
        if (page !== p) continue;
        const box = make("div", "box");
        box.style.left = `${(100 * x0) / width}%`;
        box.style.top = `${(100 * y0) / height}%`;
        box.style.width = `${(100 * (x1 - x0)) / width}%`;
        box.style.height = `${(100 * (y1 - y0)) / height}%`;
        sheet.append(box);
      }
      nodes.push(make("p", "sheet-label", `page ${p}`), sheet);
    }
    side.sheets.replaceChildren(...nodes);
    const box = side.sheets.querySelector(".box");
    if (box) {
      const sheet = box.parentElement;
      side.sheets.scrollTop = sheet.offsetTop + box.offsetTop - side.sheets.clientHeight / 3;
    }
  }

  function onListKey(side, event) {
    const last = side.spans.length - 1;
    const page = Math.max(1, Math.floor(side.list.clientHeight / ROW) - 1);
    const steps = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (event.key in steps) {
      const step = steps[event.key];
      select(side, side.sel < 0 ? (step > 0 ? 0 : last) : side.sel + step, true);
    } else if (event.key === "Home" || event.key === "End") {
      select(side, event.key === "Home" ? 0 : last, true);
    } else if (event.key === "Enter" && side.sel >= 0) {
      reveal(side, side.sel);
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  }

  function onKey(event) {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    // Controls keep their own keys (Enter opens a summary, Space ticks a box).
    if (target instanceof Element && target.closest("input, textarea, select, summary, a, button")) {
      return;
    }
    const side = sides[active];
    if (!side) return;
    const inText = target instanceof Element && target.closest(".text");
    const step = { j: 1, n: 1, k: -1, p: -1 }[event.key] ??
      (!inText ? { ArrowDown: 1, ArrowUp: -1 }[event.key] : undefined);
    if (step !== undefined) {
      const last = side.spans.length - 1;
      select(side, side.sel < 0 ? (step > 0 ? 0 : last) : side.sel + step, true);
    } else if ((event.key === "Home" || event.key === "End") && !inText) {
      select(side, event.key === "Home" ? 0 : side.spans.length - 1, true);
    } else if ((event.key === "h" || event.key === "l") && sides.length > 1) {
      active = event.key === "h" ? 0 : 1;
      sides[active].list.focus();
    } else if (event.key === "Enter" && side.sel >= 0 && !inText) {
      reveal(side, side.sel);
    } else if (event.key === "Escape") {
      hideTip();
    } else {
      return;
    }
    event.preventDefault();
  }

  function offsetAtTop(side) {
    // The document offset of the text at the top of the pane (for scrolling together).
    const box = side.pane.getBoundingClientRect();
    const first = side.blocks.length ? side.blocks[0].node : null;
    const x = box.left + (first ? parseFloat(getComputedStyle(first).paddingLeft) : 0) + 4;
    const y = box.top + 6;
    let node = null;
    let offset = 0;
    if (document.caretPositionFromPoint) {
      const position = document.caretPositionFromPoint(x, y);
      if (position) [node, offset] = [position.offsetNode, position.offset];
    } else if (document.caretRangeFromPoint) {
      const found = document.caretRangeFromPoint(x, y);
      if (found) [node, offset] = [found.startContainer, found.startOffset];
    }
    if (!node || !side.pane.contains(node)) return null;
    return offsetOfPoint(side.pane, node, offset);
  }

  function offsetOfPoint(root, node, offset) {
    // The document offset of a DOM position: in a text node of the document, or else the
    // start of the first shown document text after it.
    if (offsetOf.has(node)) return offsetOf.get(node) + offset;
    const element = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
    const todo = element && element.closest(".blk.todo");
    if (todo) return Number(todo.dataset.start);
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const child = node.childNodes[offset];
    let found;
    if (child) {
      walker.currentNode = child;
      found = child.nodeType === Node.TEXT_NODE ? child : walker.nextNode();
    } else {
      let last = node;
      while (last.lastChild) last = last.lastChild;
      walker.currentNode = last;
      found = walker.nextNode();
    }
    while (found && (!offsetOf.has(found) || found.parentNode.classList.contains("echo"))) {
      found = walker.nextNode();
    }
    return found ? offsetOf.get(found) : null;
  }

  function scrollToOffset(side, offset) {
    const item = drawnAt(side.items, offset);
    const at = side.items[item] && side.items[item].v <= offset ? item : 0;
    drawBlock(side, side.blockOf[at]);
    const block = side.blocks[side.blockOf[at]].node;
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const base = offsetOf.get(node);
      if (base === undefined || node.parentNode.classList.contains("echo")) continue;
      if (offset >= base && offset < base + node.length) {
        // The box of the character at offset (a line feed may have none: then its element's).
        const spot = document.createRange();
        spot.setStart(node, offset - base);
        spot.setEnd(node, offset - base + 1);
        const boxes = [...spot.getClientRects()].filter((box) => box.height > 0);
        const rect = boxes.length ? boxes[0] : node.parentElement.getBoundingClientRect();
        const top = side.pane.getBoundingClientRect().top;
        side.syncing = performance.now();
        side.pane.scrollTop += rect.top - top - 6;
        return;
      }
    }
  }

  function linkScrolling(toggle) {
    let pending = false;
    sides.forEach((side) => {
      side.pane.addEventListener("scroll", () => {
        if (!toggle.checked || pending || performance.now() - side.syncing < 120) return;
        pending = true;
        requestAnimationFrame(() => {
          pending = false;
          const offset = offsetAtTop(side);
          if (offset !== null) scrollToOffset(sides[1 - side.k], offset);
        });
      });
    });
  }

  function onCopy(side, event) {
    // The selection's own document text: hidden copies, marks and notes never get in.
    const selection = getSelection();
    if (!selection.rangeCount || selection.isCollapsed) return;
    const chosen = selection.getRangeAt(0);
    const root = chosen.commonAncestorContainer;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let a = null;
    let b = null;
    let node = root.nodeType === Node.TEXT_NODE ? root : walker.nextNode();
    for (; node; node = walker.nextNode()) {
      const base = offsetOf.get(node);
      if (base === undefined || !side.pane.contains(node)) continue;
      if (node.parentNode.classList.contains("echo") || !chosen.intersectsNode(node)) continue;
      const from = node === chosen.startContainer ? base + chosen.startOffset : base;
      const to = node === chosen.endContainer ? base + chosen.endOffset : base + node.length;
      if (a === null) a = from;
      b = to;
      if (node === root) break;
    }
    if (a === null || b <= a) return;
    event.clipboardData.setData("text/plain", TEXT.slice(a, b));
    event.preventDefault();
  }

  // ---- start ----

  function start() {
    DATA.sides.forEach((data, k) => {
      const section = document.getElementById(`side${k}`);
      const side = {
        k, spans: data.spans, records: data.records, sizes: data.sizes, unit: data.unit,
        limit: data.limit, els: [], sel: -1, syncing: 0, rowFirst: -1, rowLast: -1,
        pane: section.querySelector(".text"), list: section.querySelector(".list"),
        record: section.querySelector(".record"), rows: make("div", "rows"), observer: null,
        sheets: section.querySelector(".sheets"),
      };
      if (SHEETS) {
        section.classList.add("paged");
        side.sheets.hidden = false;
        side.sheets.append(make("p", "sheet-label", "Select a chunk to see it on its page."));
      }
      layout(side);
      side.ownItem = new Int32Array(side.spans.length);
      side.items.forEach((item, t) => {
        if (!item.gap) side.ownItem[item.i] = t;
      });
      sides.push(side);
      side.rows.style.height = `${side.spans.length * ROW}px`;
      side.list.style.setProperty("--digits", `${String(side.spans.length).length + 2}ch`);
      side.list.append(side.rows);
      if (!side.spans.length) side.list.append(make("p", "", "No chunks."));
      drawPane(side);
      drawRows(side, true);
      side.list.addEventListener("scroll", () => drawRows(side, false));
      side.list.addEventListener("keydown", (event) => onListKey(side, event));
      side.list.addEventListener("focus", () => { active = k; });
      side.list.addEventListener("click", (event) => {
        const row = event.target instanceof Element && event.target.closest(".row");
        if (row) select(side, Number(row.dataset.index), true);
      });
      side.list.addEventListener("mouseover", (event) => {
        const row = event.target instanceof Element && event.target.closest(".row");
        if (!row) return hideTip();
        const box = row.getBoundingClientRect();
        showTip([recordView(side, Number(row.dataset.index), true)], box.right, box.top);
      });
      side.list.addEventListener("mouseleave", hideTip);
      side.pane.addEventListener("mouseover", (event) => hoverText(side, event));
      side.pane.addEventListener("mouseleave", hideTip);
      side.pane.addEventListener("click", () => { active = k; });
      side.pane.addEventListener("copy", (event) => onCopy(side, event));
    });
    document.addEventListener("keydown", onKey);
    addEventListener("resize", () => sides.forEach((side) => drawRows(side, true)));
    const link = document.querySelector(".link");
    if (sides.length > 1 && link) {
      link.hidden = false;
      linkScrolling(link.querySelector("input"));
    }
    document.documentElement.dataset.ready = "true";
  }

  start();
})();
