import { describe, expect, it } from 'vitest';
import { approvalMsg, assistantMsg, baselineChange, searchChange, toolMsg, userMsg } from '../test/fixtures';
import { baseline, buildRows, contextUsed } from './rows';

describe('buildRows', () => {
  it('shows capability changes and loaded skills, but not the session\'s first set', () => {
    const messages = [
      userMsg(2, 'open a PR'),
      baselineChange(3),
      toolMsg(5, { name: 'ToolSearch', status: 'done' }),
      searchChange(7),
      { seq: 9, kind: 'loaded' as const, time: '', loaded: { id: 'skill__release', kind: 'skill', name: 'release' } },
    ];
    const rows = buildRows(messages);
    expect(rows.map((r) => r.kind)).toEqual(['user', 'tool', 'capabilities', 'loaded']);
    expect(baseline(messages)?.seq).toBe(3);
    expect(baseline([userMsg(1, 'x')])).toBeUndefined();
  });

  it('folds approvals into their tool cards and carries tool-call usage to the answer', () => {
    const rows = buildRows([
      userMsg(2, 'write it'),
      { ...assistantMsg(4, '', { inputTokens: 100, outputTokens: 5 }), toolCalls: [{ id: 'call_1', name: 'Write', arguments: '{}' }] },
      toolMsg(6, { status: 'done' }),
      approvalMsg(7, { decision: 'deny', reason: 'no' }),
      assistantMsg(9, 'done', { inputTokens: 150, outputTokens: 7, costUsd: 0.01 }),
    ]);
    expect(rows.map((r) => r.kind)).toEqual(['user', 'tool', 'assistant']);
    const tool = rows[1];
    expect(tool.kind === 'tool' && tool.approval?.reason).toBe('no');
    const answer = rows[2];
    expect(answer.kind === 'assistant' && answer.usage).toMatchObject({ inputTokens: 250, outputTokens: 12, costUsd: 0.01 });
  });

  it('matches repeated call IDs to the approval asked after each call', () => {
    const rows = buildRows([
      toolMsg(3, { callId: 'call_1' }),
      approvalMsg(4, { callId: 'call_1', decision: 'allow_once' }),
      toolMsg(8, { callId: 'call_1', name: 'Bash' }),
      approvalMsg(9, { callId: 'call_1', name: 'Bash', decision: 'deny', reason: 'later' }),
    ]);
    const second = rows[1];
    expect(second.kind === 'tool' && second.approval?.reason).toBe('later');
  });

  it('shows the usage of a turn that ended without text, but not while it runs', () => {
    const msgs = [userMsg(2, 'go'), assistantMsg(3, '', { inputTokens: 10, outputTokens: 2 })];
    expect(buildRows(msgs).map((r) => r.kind)).toEqual(['user', 'usage']);
    expect(buildRows(msgs, true).map((r) => r.kind)).toEqual(['user']);
  });

  it('shows one usage line per answer, under its last text', () => {
    const rows = buildRows([
      userMsg(2, 'look and fix'),
      { ...assistantMsg(3, 'Let me look.', { inputTokens: 100, outputTokens: 5 }), toolCalls: [{ id: 'c1', name: 'Read', arguments: '{}' }] },
      toolMsg(4, { callId: 'c1', name: 'Read', status: 'done' }),
      { ...assistantMsg(6, 'Now the fix.', { inputTokens: 120, outputTokens: 6 }), toolCalls: [{ id: 'c2', name: 'Edit', arguments: '{}' }] },
      toolMsg(7, { callId: 'c2', name: 'Edit', status: 'done' }),
      assistantMsg(9, '', { inputTokens: 130, outputTokens: 1 }),
      userMsg(10, 'thanks'),
      assistantMsg(11, 'You are welcome.', { inputTokens: 10, outputTokens: 3 }),
    ]);
    expect(rows.map((r) => r.kind)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'user', 'assistant']);
    const usages = rows.map((r) => (r.kind === 'assistant' ? r.usage : null));
    expect(usages[1]).toBeNull();
    expect(usages[3]).toMatchObject({ inputTokens: 350, outputTokens: 12 });
    expect(usages[6]).toMatchObject({ inputTokens: 10, outputTokens: 3 });
    // While the last turn runs, its figures wait for its end.
    const live = buildRows([userMsg(2, 'go'), assistantMsg(3, 'Working.', { inputTokens: 9, outputTokens: 1 })], true);
    expect(live[1].kind === 'assistant' && live[1].usage).toBeNull();
  });

  it('keeps an interrupted answer', () => {
    const rows = buildRows([{ ...assistantMsg(3, ''), partial: true }]);
    expect(rows.map((r) => r.kind)).toEqual(['assistant']);
  });
});

describe('contextUsed', () => {
  it('falls back to the last non-empty usage when the last answer had none', () => {
    const messages = [
      assistantMsg(3, 'a', { inputTokens: 1000, outputTokens: 20 }),
      { ...assistantMsg(5, 'cut'), partial: true, usage: { inputTokens: 0, outputTokens: 0 } },
    ];
    expect(contextUsed({ contextUsed: 0, messages })).toBe(1020);
    expect(contextUsed({ contextUsed: 77, messages })).toBe(77);
  });
});
