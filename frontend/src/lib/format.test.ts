import { describe, expect, it } from 'vitest';
import { session } from '../test/fixtures';
import { formatCost, groupByDay, parseUnifiedDiff, ruleNotation, suggestedRule, toolDisplayName, toolSummary } from './format';

describe('groupByDay', () => {
  const now = new Date(2026, 10, 30, 15, 0); // 30 Nov 2026, local time
  const at = (y: number, m: number, d: number, h = 12) => new Date(y, m, d, h).toISOString();

  it('groups sessions into today, yesterday and earlier dates, newest first', () => {
    const groups = groupByDay(
      [
        session({ id: 'old', updatedAt: at(2026, 10, 20) }),
        session({ id: 'today-1', updatedAt: at(2026, 10, 30, 9) }),
        session({ id: 'yesterday', updatedAt: at(2026, 10, 29) }),
        session({ id: 'today-2', updatedAt: at(2026, 10, 30, 14) }),
        session({ id: 'last-year', updatedAt: at(2025, 0, 3) }),
      ],
      now,
      'en',
    );
    expect(groups.map((g) => g.label.slice(0, 9))).toEqual(['today', 'yesterday', 'Fri, Nov ', 'Fri, Jan ']);
    expect(groups[0].sessions.map((s) => s.id)).toEqual(['today-2', 'today-1']);
    expect(groups[3].label).toContain('2025');
    expect(groups[2].label).not.toContain('2026');
  });

  it('returns no groups for no sessions', () => {
    expect(groupByDay([], now, 'en')).toEqual([]);
  });
});

describe('toolSummary', () => {
  it.each([
    ['Write', '{"path":"src/a.ts","content":"x"}', 'src/a.ts'],
    ['Bash', '{"command":"go test ./...\\n  -run X"}', 'go test ./... -run X'],
    ['Grep', '{"pattern":"TODO","path":"src"}', 'TODO · src'],
    ['mcp__files__read', '{"uri":"file:///etc/hosts"}', 'file:///etc/hosts'],
    ['WebFetch', '{"prompt":"the API","url":"https://example.com/docs"}', 'https://example.com/docs · the API'],
    ['WebSearch', '{"count":3,"query":"go readability"}', 'go readability'],
    ['Other', 'not json', ''],
  ])('%s %s → %s', (name, args, want) => {
    expect(toolSummary(name, args)).toBe(want);
  });

  it('cuts long summaries', () => {
    const s = toolSummary('Bash', JSON.stringify({ command: 'x'.repeat(500) }));
    expect(s.length).toBe(120);
    expect(s.endsWith('…')).toBe(true);
  });
});

describe('toolDisplayName', () => {
  it('shows MCP tools as server · tool', () => {
    expect(toolDisplayName('mcp__github__create_issue')).toBe('github · create_issue');
    expect(toolDisplayName('Read')).toBe('Read');
  });
});

describe('parseUnifiedDiff', () => {
  it('numbers and classifies the lines', () => {
    const lines = parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -3,2 +3,2 @@\n keep\n-old\n+new\n');
    expect(lines.map((l) => l.kind)).toEqual(['file', 'file', 'hunk', 'ctx', 'del', 'add']);
    expect(lines[3]).toMatchObject({ text: 'keep', oldNo: 3, newNo: 3 });
    expect(lines[4]).toMatchObject({ text: 'old', oldNo: 4 });
    expect(lines[5]).toMatchObject({ text: 'new', newNo: 4 });
  });

  it('reads the GNU headers the backend writes: one-line sides without a count, a missing newline noted', () => {
    const lines = parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -7 +7,2 @@\n-a\n\\ No newline at end of file\n+b\n+c\n');
    expect(lines.map((l) => l.kind)).toEqual(['file', 'file', 'hunk', 'del', 'note', 'add', 'add']);
    expect(lines[3]).toMatchObject({ text: 'a', oldNo: 7 });
    expect(lines[5]).toMatchObject({ text: 'b', newNo: 7 });
    expect(lines[6]).toMatchObject({ text: 'c', newNo: 8 });
  });
});

describe('rule notation', () => {
  it('writes rules as Claude Code does', () => {
    expect(ruleNotation('Bash', 'git status:*')).toBe('Bash(git status:*)');
    expect(ruleNotation('Write')).toBe('Write');
    expect(suggestedRule('Bash', 'Bash(npm test:*)')).toBe('Bash(npm test:*)');
    expect(suggestedRule('Bash', 'git status')).toBe('Bash(git status:*)'); // an older session's prefix
    expect(suggestedRule('Bash', '')).toBe('');
  });
});

describe('formatCost', () => {
  it('shows small amounts with four digits', () => {
    expect(formatCost(0.0012, 'en')).toBe('$0.0012');
    expect(formatCost(1.5, 'en')).toBe('$1.50');
  });
});
