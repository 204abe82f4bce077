import { describe, expect, it } from 'vitest';
import { flattenHooks, hookOutcome, withEdit, withHook, withoutHook } from './hooks';
import type { HookRun, HooksConfig } from './types';

const config = (): HooksConfig => ({
  PreToolUse: [
    { matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh', timeout: 5 }, { type: 'command', command: 'audit.sh' }] },
    { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'protect.py' }] },
  ],
  Stop: [{ hooks: [{ type: 'prompt' }] }],
});

describe('editing Claude Code-shaped hooks', () => {
  it('flattens in lifecycle order with each hook\'s place', () => {
    const rows = flattenHooks(config());
    expect(rows.map((r) => `${r.event}/${r.group}/${r.index}/${r.matcher}/${r.command || r.type}`)).toEqual([
      'PreToolUse/0/0/Bash/guard.sh',
      'PreToolUse/0/1/Bash/audit.sh',
      'PreToolUse/1/0/Write|Edit/protect.py',
      'Stop/0/0//prompt',
    ]);
  });

  it('adds to the group of the same matcher, or a new group', () => {
    const c = withHook(withHook(config(), { event: 'PreToolUse', matcher: 'Bash', command: ' fmt.sh ' }), { event: 'SessionStart', matcher: '', command: 'git status', timeout: 10 });
    expect(c.PreToolUse?.[0].hooks.map((h) => h.command)).toEqual(['guard.sh', 'audit.sh', 'fmt.sh']);
    expect(c.SessionStart).toEqual([{ hooks: [{ type: 'command', command: 'git status', timeout: 10 }] }]);
    expect(config().PreToolUse?.[0].hooks.length).toBe(2); // the input is untouched
  });

  it('removes a hook, its group when empty, and its event when empty', () => {
    let c = withoutHook(config(), { event: 'PreToolUse', group: 1, index: 0 });
    expect(c.PreToolUse?.length).toBe(1);
    c = withoutHook(c, { event: 'Stop', group: 0, index: 0 });
    expect('Stop' in c).toBe(false);
  });

  it('edits in place, or moves a hook that shares its group when its matcher changes', () => {
    const rows = flattenHooks(config());
    let c = withEdit(config(), rows[2], { event: 'PreToolUse', matcher: 'Write', command: 'protect.py --strict' });
    expect(c.PreToolUse?.[1]).toEqual({ matcher: 'Write', hooks: [{ type: 'command', command: 'protect.py --strict' }] });
    c = withEdit(config(), rows[1], { event: 'PreToolUse', matcher: 'Read', command: 'audit.sh' });
    expect(c.PreToolUse?.[0].hooks.map((h) => h.command)).toEqual(['guard.sh']);
    expect(c.PreToolUse?.[2]).toEqual({ matcher: 'Read', hooks: [{ type: 'command', command: 'audit.sh' }] });
    c = withEdit(config(), rows[0], { event: 'PreToolUse', matcher: 'Bash', command: 'guard.sh' });
    expect(c.PreToolUse?.[0].hooks[0]).toEqual({ type: 'command', command: 'guard.sh' }); // the timeout was cleared
  });
});

describe('hookOutcome', () => {
  const run = (over: Partial<HookRun>): HookRun => ({ event: 'PreToolUse', command: 'x', durationMs: 3, exitCode: 0, ...over });
  it('names what a run did', () => {
    expect(hookOutcome(run({}))).toBe('ran');
    expect(hookOutcome(run({ decision: 'deny', exitCode: 2 }))).toBe('denied');
    expect(hookOutcome(run({ decision: 'allow' }))).toBe('allowed');
    expect(hookOutcome(run({ decision: 'ask' }))).toBe('asked');
    expect(hookOutcome(run({ event: 'UserPromptSubmit', decision: 'block' }))).toBe('refused');
    expect(hookOutcome(run({ event: 'Stop', decision: 'block', context: 'Stop hook feedback: x' }))).toBe('goOn');
    expect(hookOutcome(run({ event: 'Stop', decision: 'block', problem: 'blocked again' }))).toBe('failed');
    expect(hookOutcome(run({ event: 'PostToolUse', decision: 'block' }))).toBe('feedback');
    expect(hookOutcome(run({ timedOut: true, exitCode: -1, problem: 'timeout' }))).toBe('timedOut');
    expect(hookOutcome(run({ exitCode: 1, problem: 'exited with status 1' }))).toBe('failed');
    expect(hookOutcome(run({ stop: true, stopReason: 'enough' }))).toBe('stopped');
  });
});
