import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { language } from '../../lib/stores/ui';
import type { HookRun } from '../../lib/types';
import HookLine from './HookLine.svelte';

beforeEach(() => language.set('en'));

const run = (over: Partial<HookRun>): HookRun => ({ event: 'PreToolUse', command: './guard.sh', durationMs: 12, exitCode: 0, ...over });

describe('the quiet line of a hook run', () => {
  it('says which hook did what, and opens to the reason and output', async () => {
    render(HookLine, { run: run({ decision: 'deny', exitCode: 2, reason: 'no rm -rf here', output: 'no rm -rf here', source: '.claude/settings.json' }) });
    expect(screen.getByText('PreToolUse hook')).toBeTruthy();
    expect(screen.getByText('./guard.sh')).toBeTruthy();
    expect(screen.getByText('blocked the call')).toBeTruthy();
    expect(screen.getByText('12 ms')).toBeTruthy();
    expect(screen.queryByText('from .claude/settings.json')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Details of the PreToolUse hook ./guard.sh' }));
    expect(screen.getByText('from .claude/settings.json')).toBeTruthy();
    expect(screen.getAllByText('no rm -rf here').length).toBe(2);
  });

  it('keeps a refused message, which was never sent', async () => {
    render(HookLine, { run: run({ event: 'UserPromptSubmit', decision: 'block', exitCode: 2, reason: 'no passwords', prompt: 'my password is hunter2' }) });
    expect(screen.getByText('refused your message')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button'));
    expect(screen.getByText('Your message (not sent)')).toBeTruthy();
    expect(screen.getByText('my password is hunter2')).toBeTruthy();
  });

  it('reports a hook that timed out, in Japanese too', () => {
    language.set('ja');
    render(HookLine, { run: run({ event: 'Stop', timedOut: true, exitCode: -1, problem: 'timeout' }) });
    expect(screen.getByText('Stop フック')).toBeTruthy();
    expect(screen.getByText('タイムアウトして停止されました')).toBeTruthy();
  });

  it('has nothing to open when the hook only ran', () => {
    render(HookLine, { run: run({}) });
    expect((screen.getByRole('button') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('ran')).toBeTruthy();
  });
});
