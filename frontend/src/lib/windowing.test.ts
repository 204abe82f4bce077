import { describe, expect, it } from 'vitest';
import type { Row } from './rows';
import type { UIMessage } from './types';
import {
  HeightBook,
  alignedTop,
  anchorAt,
  covers,
  estimateHeight,
  grownTo,
  listHeight,
  markdownHeight,
  mustSettle,
  offsetsOf,
  rangeFor,
  rowAt,
  segmentsFor,
  stepToward,
} from './windowing';

const gap = 16;

function msg(kind: UIMessage['kind'], seq: number, text = ''): UIMessage {
  return { seq, kind, time: '', text };
}

const user = (seq: number, text: string): Row => ({ kind: 'user', key: `user-${seq}`, msg: msg('user', seq, text) });
const answer = (seq: number, text: string): Row => ({ kind: 'assistant', key: `assistant-${seq}`, msg: msg('assistant', seq, text), usage: null });

// Ten rows of 100 px: row i spans [116 i, 116 i + 100).
const tens = offsetsOf(new Array(10).fill(100), gap);

describe('offsets and the row at a point', () => {
  it('puts each row a gap below the previous one', () => {
    const o = offsetsOf([100, 50, 200], gap);
    expect(Array.from(o)).toEqual([0, 116, 182, 398]);
    expect(listHeight(o, gap)).toBe(382);
    expect(listHeight(offsetsOf([], gap), gap)).toBe(0);
  });

  it('finds the row at y, a row reaching down to the next one', () => {
    expect(rowAt(tens, -50)).toBe(0);
    expect(rowAt(tens, 0)).toBe(0);
    expect(rowAt(tens, 115)).toBe(0); // in the gap under row 0
    expect(rowAt(tens, 116)).toBe(1);
    expect(rowAt(tens, 10_000)).toBe(9);
    expect(rowAt(offsetsOf([], gap), 0)).toBe(-1);
  });
});

describe('rangeFor', () => {
  it('takes the rows meeting the viewport, widened by the overscan each way', () => {
    expect(rangeFor(tens, 300, 200, 0)).toEqual({ start: 2, end: 5 });
    expect(rangeFor(tens, 300, 200, 116)).toEqual({ start: 1, end: 6 });
    expect(rangeFor(tens, 300, 200, 0, 300)).toEqual({ start: 2, end: 7 });
  });

  it('stays inside the list', () => {
    expect(rangeFor(tens, -500, 200, 2000)).toEqual({ start: 0, end: 10 });
    expect(rangeFor(offsetsOf([], gap), 0, 800, 600)).toEqual({ start: 0, end: 0 });
  });
});

describe('growing and stepping the rendered range', () => {
  const target = { start: 2, end: 8 };

  it('adds only the rows needed now, keeping the others until idle', () => {
    expect(grownTo({ start: 3, end: 6 }, { start: 4, end: 6 }, target, 100)).toEqual({ start: 3, end: 6 });
    expect(grownTo({ start: 3, end: 6 }, { start: 2, end: 5 }, target, 100)).toEqual({ start: 2, end: 6 });
  });

  it('goes straight to the target after a jump, or when it would grow too big', () => {
    expect(grownTo({ start: 0, end: 2 }, { start: 5, end: 7 }, target, 100)).toEqual(target);
    expect(grownTo({ start: 0, end: 6 }, { start: 5, end: 8 }, target, 7)).toEqual(target);
  });

  it('adds one row at a time, ahead of the way the view moves first, then drops what is past the target', () => {
    expect(stepToward({ start: 4, end: 6 }, target, -1)).toEqual({ start: 3, end: 6 });
    expect(stepToward({ start: 4, end: 6 }, target, 1)).toEqual({ start: 4, end: 7 });
    expect(stepToward({ start: 2, end: 6 }, target, -1)).toEqual({ start: 2, end: 7 });
    expect(stepToward({ start: 0, end: 9 }, target, 1)).toEqual(target);
    expect(covers({ start: 1, end: 9 }, target)).toBe(true);
    expect(covers({ start: 3, end: 9 }, target)).toBe(false);
  });
});

describe('segmentsFor', () => {
  it('stands a spacer in for each run of rows not rendered', () => {
    const segs = segmentsFor(tens, gap, { start: 3, end: 5 }, [], 0);
    expect(segs).toEqual([
      { kind: 'gap', key: 'gap-0', from: 0, to: 3, height: 3 * 116 - gap },
      { kind: 'row', index: 3 },
      { kind: 'row', index: 4 },
      { kind: 'gap', key: 'gap-5', from: 5, to: 10, height: 5 * 116 - gap },
    ]);
  });

  it('keeps a pinned row (the focus) rendered far from the range, and makes the first spacer absorb adjust', () => {
    const segs = segmentsFor(tens, gap, { start: 6, end: 8 }, [1], 40);
    expect(segs.map((s) => (s.kind === 'row' ? s.index : `${s.from}-${s.to}:${s.height}`))).toEqual(['0-1:140', 1, '2-6:448', 6, 7, '8-10:216']);
  });

  it('renders nothing for an empty list', () => {
    expect(segmentsFor(offsetsOf([], gap), gap, { start: 0, end: 0 }, [3], 0)).toEqual([]);
  });
});

describe('anchoring', () => {
  const keys = Array.from({ length: 10 }, (_, i) => `r${i}`);

  it('anchors to the row at the viewport top and how far into it', () => {
    expect(anchorAt(tens, keys, 250)).toEqual({ key: 'r2', delta: 18 });
    expect(anchorAt(offsetsOf([], gap), [], 0)).toBeNull();
  });

  it('keeps the anchor on screen when a row above it grows: the spacer absorbs it, no scroll', () => {
    // The view's top is 18 px into row 2, rows 1..4 rendered; row 1 turns
    // out 60 px taller than estimated.
    const scrollTop = 250;
    const anchor = anchorAt(tens, keys, scrollTop)!;
    const grown = offsetsOf([100, 160, 100, 100, 100, 100, 100, 100, 100, 100], gap);
    const i = keys.indexOf(anchor.key);
    const adjust = scrollTop - anchor.delta - grown[i];
    expect(adjust).toBe(-60);
    // Row 2 is drawn where it was: its new top plus adjust.
    expect(grown[i] + adjust).toBe(tens[i]);
    expect(mustSettle(grown, gap, 1, adjust)).toBe(false); // the spacer above row 1 (100 px) can shrink by 60
    expect(mustSettle(grown, gap, 0, adjust)).toBe(true); // no spacer above the first row: scroll instead
    expect(mustSettle(grown, gap, 1, -200)).toBe(true); // more than the spacer has
    expect(mustSettle(grown, gap, 0, 0)).toBe(false);
  });
});

describe('alignedTop', () => {
  const heights = new Array(10).fill(100);

  it('brings a row to the viewport’s top, centre or bottom', () => {
    expect(alignedTop(tens, heights, 5, 0, 300, 'start')).toBe(580);
    expect(alignedTop(tens, heights, 5, 0, 300, 'center')).toBe(580 + 50 - 150);
    expect(alignedTop(tens, heights, 5, 0, 300, 'end')).toBe(680 - 300);
  });

  it('scrolls only as far as needed for nearest', () => {
    expect(alignedTop(tens, heights, 5, 500, 300, 'nearest')).toBe(500); // in full view already
    expect(alignedTop(tens, heights, 5, 600, 300, 'nearest')).toBe(580); // above: its top
    expect(alignedTop(tens, heights, 5, 300, 300, 'nearest')).toBe(380); // below: its bottom
    expect(alignedTop(tens, [...heights.slice(0, 5), 500], 5, 300, 300, 'nearest')).toBe(580); // taller than the view: its top
  });
});

describe('height estimates', () => {
  it('grows with the text, and with code and tables', () => {
    const short = markdownHeight('Done.', 700);
    const long = markdownHeight('word '.repeat(400), 700);
    expect(long).toBeGreaterThan(short * 10);
    const code = markdownHeight('Look:\n\n```go\nfunc a() {}\nfunc b() {}\nfunc c() {}\n```', 700);
    expect(code).toBeGreaterThan(markdownHeight('Look:', 700) + 3 * 16);
    const table = markdownHeight('| a | b |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |', 700);
    expect(table).toBeCloseTo(3 * 34);
  });

  it('wraps more in a narrower list', () => {
    const text = 'word '.repeat(200);
    expect(estimateHeight(answer(2, text), 400)).toBeGreaterThan(estimateHeight(answer(2, text), 900));
    expect(estimateHeight(user(1, text), 0)).toBe(estimateHeight(user(1, text), 760)); // not laid out yet
  });

  it('has a small fixed height for the one-line rows', () => {
    expect(estimateHeight({ kind: 'usage', key: 'usage-1', usage: { inputTokens: 1, outputTokens: 1 } }, 700)).toBeLessThan(40);
    expect(estimateHeight({ kind: 'model', key: 'model-3', msg: msg('model', 3) }, 700)).toBeLessThan(40);
  });
});

describe('HeightBook', () => {
  const rows = [user(1, 'hi'), answer(2, 'hello there'), user(3, 'again'), answer(4, 'and again'), user(5, 'more'), answer(6, 'yes'), user(7, 'last')];

  it('uses what was measured, and scales the estimates of a kind by how its measured rows compared', () => {
    const book = new HeightBook();
    book.setWidth(700);
    const before = book.heights(rows);
    expect(book.measure(rows[0], 2 * before[0])).toBe(true);
    expect(book.measure(rows[0], 2 * before[0])).toBe(false); // the same again changes nothing
    book.measure(rows[2], 2 * before[2]);
    book.measure(rows[4], 2 * before[4]);
    const after = book.heights(rows);
    expect(after[0]).toBe(2 * before[0]);
    expect(after[6]).toBeCloseTo(2 * before[6]); // three users measured twice their estimate: the fourth is scaled
    expect(after[1]).toBe(before[1]); // no answer measured yet
    expect(book.has('user-1')).toBe(true);
  });

  it('forgets what was measured at another width', () => {
    const book = new HeightBook();
    book.setWidth(700);
    book.measure(rows[0], 500);
    expect(book.setWidth(700.4)).toBe(false);
    expect(book.has('user-1')).toBe(true);
    expect(book.setWidth(500)).toBe(true);
    expect(book.has('user-1')).toBe(false);
  });
});
