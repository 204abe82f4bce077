// Windowing for the message list: only the rows near the viewport are in
// the DOM, and spacers stand in for the others. A row's height is what it
// measured when it was last shown, or an estimate from its text until then.
//
// Coordinates: row i's top in the list is offsets[i] (rows are gap pixels
// apart, offsets[i + 1] = offsets[i] + heights[i] + gap). On the page the
// rendered rows sit `adjust` pixels lower than that: when rows above the
// viewport turn out taller or shorter than estimated, the spacer above them
// absorbs the difference, so that what the user sees stays put without
// writing scrollTop in the middle of a scroll (which would stop a smooth or
// kinetic scroll). The difference is settled (adjust back to 0, one
// scrollTop write) when the scroll comes to rest or the spacer above runs
// out (see mustSettle).
import type { Row } from './rows';

/** Range is the rows [start, end) that are rendered around the viewport. */
export interface Range {
  start: number;
  end: number;
}

/** Segment is one child of the list: a rendered row, or a spacer standing for rows [from, to). */
export type Segment = { kind: 'row'; index: number } | { kind: 'gap'; key: string; from: number; to: number; height: number };

/** Anchor is a row and how far the viewport's top is below that row's top. */
export interface Anchor {
  key: string;
  delta: number;
}

/** Align is where a row is brought to: its top, centre or bottom at the viewport's, or only as far as needed to show it. */
export type Align = 'start' | 'center' | 'end' | 'nearest';

/** defaultWidth is the list's width assumed before it has been laid out (as in unit tests). */
const defaultWidth = 760;

// The metrics of the app's text (app.css: 15 px type, line-height 1.45;
// code 0.78em mono at 1.4), a little generous, for estimates only.
const charWidth = 7.4;
const lineHeight = 21.75;
const codeCharWidth = 7.1;
const codeLineHeight = 16.5;

/** wrappedLines is how many lines text of chars characters takes in width pixels. */
function wrappedLines(chars: number, width: number, perChar = charWidth): number {
  return Math.max(1, Math.ceil((chars * perChar) / Math.max(80, width)));
}

/**
 * markdownHeight estimates rendered Markdown: paragraphs and list items
 * wrap at width, code blocks take a line per source line and a header with
 * the copy button, tables a row per line.
 */
export function markdownHeight(text: string, width: number): number {
  let h = 0;
  let inCode = false;
  let code = 0;
  let para = 0; // characters of the paragraph being read
  const endPara = () => {
    if (para > 0) {
      h += wrappedLines(para, width) * lineHeight + 12;
      para = 0;
    }
  };
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      if (inCode) {
        h += code * codeLineHeight + 58;
        code = 0;
      } else {
        endPara();
      }
      inCode = !inCode;
      continue;
    }
    if (inCode) {
      code += wrappedLines(line.length, width - 24, codeCharWidth);
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === '') {
      endPara();
    } else if (/^\|.*\|$/.test(trimmed)) {
      endPara();
      h += /^\|[\s:|-]+\|$/.test(trimmed) ? 0 : 34;
    } else if (/^([-*+]|\d+[.)])\s/.test(trimmed)) {
      endPara();
      h += wrappedLines(trimmed.length, width - 28) * lineHeight + 3;
    } else if (/^#{1,6}\s/.test(trimmed)) {
      endPara();
      h += lineHeight * 1.3 + 14;
    } else {
      para += trimmed.length + 1;
    }
  }
  if (inCode) {
    h += code * codeLineHeight + 58;
  }
  endPara();
  return h;
}

/**
 * estimateHeight is the height a row will probably take in a list width
 * pixels wide (0: not laid out yet), before it has been measured. It only
 * has to be close: a shown row is measured, and the difference is absorbed.
 */
export function estimateHeight(row: Row, width: number): number {
  const w = width > 0 ? width : defaultWidth;
  switch (row.kind) {
    case 'user': {
      const text = row.msg.text ?? '';
      const inner = Math.min(608, w * 0.85) - 30;
      const lines = text.split('\n').reduce((n, l) => n + wrappedLines(l.length, inner), 0);
      return lines * 22.5 + 20 + 30 + (row.msg.attachments?.length ? 76 : 0);
    }
    case 'assistant':
      return markdownHeight(row.msg.text ?? '', w - 40) + 22 + (row.msg.partial ? 26 : 0);
    case 'tool': {
      const tool = row.msg.tool;
      let h = 42 + (tool?.hooks?.length ?? 0) * 20;
      const diff = typeof tool?.meta?.diff === 'string' ? tool.meta.diff : '';
      if (diff) {
        h += Math.min(diff.split('\n').length, 400) * 18 + 60;
      } else if (tool?.status === 'error') {
        h += Math.min((tool.result ?? '').split('\n').length, 14) * codeLineHeight + 70;
      }
      return h;
    }
    case 'usage':
      return 20;
    case 'error':
      return 88;
    case 'compaction':
      return 42;
    case 'capabilities':
      return 30;
    case 'loaded':
      return 64;
    case 'model':
      return 20;
    case 'hook':
      return 20;
  }
}

/** offsetsOf is the top of each row, and past the last one, the list's height plus one gap (n + 1 entries). */
export function offsetsOf(heights: ArrayLike<number>, gap: number): Float64Array {
  const out = new Float64Array(heights.length + 1);
  for (let i = 0; i < heights.length; i++) {
    out[i + 1] = out[i] + heights[i] + gap;
  }
  return out;
}

/** listHeight is the height of the whole list (every row and the gaps between them). */
export function listHeight(offsets: Float64Array, gap: number): number {
  const n = offsets.length - 1;
  return n > 0 ? offsets[n] - gap : 0;
}

/** rowAt is the row at y (a row reaches down to the next row's top), clamped to the list; -1 for an empty list. */
export function rowAt(offsets: Float64Array, y: number): number {
  const n = offsets.length - 1;
  if (n <= 0) {
    return -1;
  }
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= y) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/** rangeFor is the rows that meet the viewport [top, top + height] widened by before pixels above and after below. */
export function rangeFor(offsets: Float64Array, top: number, height: number, before: number, after = before): Range {
  const n = offsets.length - 1;
  if (n <= 0) {
    return { start: 0, end: 0 };
  }
  return { start: rowAt(offsets, top - before), end: rowAt(offsets, top + height + after) + 1 };
}

/** covers tells whether range has every row of need. */
export function covers(range: Range, need: Range): boolean {
  return range.start <= need.start && range.end >= need.end;
}

/**
 * stepToward is range one step closer to target: one more row at the end
 * the view moves toward (direction < 0: up) when that end falls short, else
 * one more at the other end, else the rows past target dropped at once.
 * Rows are added one at a time so that no frame has to build many.
 */
export function stepToward(range: Range, target: Range, direction: number): Range {
  const growStart = range.start > target.start;
  const growEnd = range.end < target.end;
  if (growStart && (direction <= 0 || !growEnd)) {
    return { start: range.start - 1, end: range.end };
  }
  if (growEnd) {
    return { start: range.start, end: range.end + 1 };
  }
  return { start: Math.max(range.start, target.start), end: Math.min(range.end, target.end) };
}

/**
 * grownTo is what to render now that the rows of need must be: range with
 * need's rows added (nothing taken away, that waits for idle time) when the
 * two meet, else (a jump far away) target; and target too when range has
 * grown to more than limit rows.
 */
export function grownTo(range: Range, need: Range, target: Range, limit: number): Range {
  if (covers(range, need)) {
    return range;
  }
  if (need.start > range.end || need.end < range.start) {
    return target;
  }
  const next = { start: Math.min(range.start, need.start), end: Math.max(range.end, need.end) };
  return next.end - next.start > limit ? target : next;
}

/** sameRange tells whether a and b are the same rows. */
export function sameRange(a: Range, b: Range): boolean {
  return a.start === b.start && a.end === b.end;
}

/** anchorAt is the anchor for a viewport whose top is at top: the row there and the distance into it. */
export function anchorAt(offsets: Float64Array, keys: readonly string[], top: number): Anchor | null {
  const i = rowAt(offsets, top);
  return i < 0 ? null : { key: keys[i], delta: top - offsets[i] };
}

/**
 * alignedTop is where the viewport's top (height tall, now at top) goes to
 * show row i as align asks; 'nearest' leaves it where it is when the row
 * is in full view.
 */
export function alignedTop(offsets: Float64Array, heights: ArrayLike<number>, i: number, top: number, height: number, align: Align): number {
  const rowTop = offsets[i];
  const rowBottom = rowTop + heights[i];
  switch (align) {
    case 'start':
      return rowTop;
    case 'end':
      return rowBottom - height;
    case 'center':
      return rowTop + heights[i] / 2 - height / 2;
    case 'nearest':
      if (rowTop < top || heights[i] > height) {
        return rowTop;
      }
      return rowBottom > top + height ? rowBottom - height : top;
  }
}

/**
 * segmentsFor lays out the list: the rows of range and the pinned rows
 * (those holding the focus or a selection, wherever they are) in order,
 * with a spacer for each run of rows in between. The first spacer is
 * adjust pixels taller (see the top of this file); the last stands for the
 * rows after the last rendered one.
 */
export function segmentsFor(offsets: Float64Array, gap: number, range: Range, pinned: readonly number[], adjust: number): Segment[] {
  const n = offsets.length - 1;
  const shown = new Set<number>();
  for (let i = Math.max(0, range.start); i < Math.min(n, range.end); i++) {
    shown.add(i);
  }
  for (const i of pinned) {
    if (i >= 0 && i < n) {
      shown.add(i);
    }
  }
  const order = [...shown].sort((a, b) => a - b);
  const out: Segment[] = [];
  let next = 0;
  const spacer = (from: number, to: number) => {
    const height = offsets[to] - offsets[from] - gap + (from === 0 ? adjust : 0);
    out.push({ kind: 'gap', key: `gap-${from}`, from, to, height: Math.max(0, height) });
  };
  for (const i of order) {
    if (i > next) {
      spacer(next, i);
    }
    out.push({ kind: 'row', index: i });
    next = i + 1;
  }
  if (next < n) {
    spacer(next, n);
  }
  return out;
}

/**
 * mustSettle tells whether adjust can no longer be absorbed by the spacer
 * above the first rendered row: there is none (the first row is shown), or
 * it would be shorter than nothing.
 */
export function mustSettle(offsets: Float64Array, gap: number, firstShown: number, adjust: number): boolean {
  if (adjust === 0) {
    return false;
  }
  return firstShown <= 0 || offsets[firstShown] - gap + adjust < 0;
}

/**
 * HeightBook keeps what is known of the rows' heights: measured heights by
 * row key, and per-kind estimates scaled by how the measured rows of that
 * kind compared with their estimates. Not safe to share between lists; the
 * message list owns one per open session.
 */
export class HeightBook {
  private measured = new Map<string, number>();
  private estimates = new Map<string, { width: number; chars: number; h: number }>();
  private sums = new Map<string, { measured: number; estimated: number; count: number }>();

  /** width is the list's width the estimates are for; changing it forgets what was measured at the old width. */
  width = 0;

  /** setWidth changes the width; the measured heights are kept only for rows still rendered (they re-measure). */
  setWidth(width: number): boolean {
    if (Math.abs(width - this.width) < 1) {
      return false;
    }
    this.width = width;
    this.measured.clear();
    this.sums.clear();
    return true;
  }

  /** estimate is row's unscaled estimate at the current width, cached while its text keeps its length. */
  private estimate(row: Row): number {
    const chars = 'msg' in row ? (row.msg.text?.length ?? 0) + (row.msg.tool?.result?.length ?? 0) : 0;
    const got = this.estimates.get(row.key);
    if (got && got.width === this.width && got.chars === chars) {
      return got.h;
    }
    const h = estimateHeight(row, this.width);
    this.estimates.set(row.key, { width: this.width, chars, h });
    return h;
  }

  /** measure records row's measured height; it reports whether that changed anything. */
  measure(row: Row, height: number): boolean {
    const before = this.measured.get(row.key);
    if (before !== undefined && Math.abs(before - height) < 0.5) {
      return false;
    }
    const s = this.sums.get(row.kind) ?? { measured: 0, estimated: 0, count: 0 };
    const est = this.estimate(row);
    if (before === undefined) {
      s.count += 1;
      s.estimated += est;
      s.measured += height;
    } else {
      s.measured += height - before;
    }
    this.sums.set(row.kind, s);
    this.measured.set(row.key, height);
    return true;
  }

  /** has tells whether row has been measured at the current width. */
  has(key: string): boolean {
    return this.measured.has(key);
  }

  /** heights is every row's height: measured, or estimated and scaled by its kind's measured/estimated ratio. */
  heights(rows: readonly Row[]): Float64Array {
    const scale = new Map<string, number>();
    for (const [kind, s] of this.sums) {
      if (s.count >= 3 && s.estimated > 0) {
        scale.set(kind, Math.min(3, Math.max(0.4, s.measured / s.estimated)));
      }
    }
    const out = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      out[i] = this.measured.get(r.key) ?? this.estimate(r) * (scale.get(r.kind) ?? 1);
    }
    return out;
  }
}
