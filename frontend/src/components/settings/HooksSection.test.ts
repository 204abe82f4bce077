import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HookList, HooksConfig } from '../../lib/types';

const events: HookList['events'] = [
  { name: 'SessionStart', matchField: 'source', matcherValues: ['startup', 'resume', 'clear', 'compact'] },
  { name: 'UserPromptSubmit' },
  { name: 'PreToolUse', matchField: 'tool_name' },
  { name: 'PermissionRequest', matchField: 'tool_name' },
  { name: 'PostToolUse', matchField: 'tool_name' },
  { name: 'PostToolUseFailure', matchField: 'tool_name' },
  { name: 'Notification', matchField: 'notification_type', matcherValues: ['permission_prompt', 'idle_prompt'] },
  { name: 'Stop' },
  { name: 'SubagentStop', matchField: 'agent_type' },
  { name: 'PreCompact', matchField: 'trigger', matcherValues: ['manual', 'auto'] },
  { name: 'SessionEnd', matchField: 'reason' },
];

const list = (hooks: HooksConfig, trust: 'untrusted' | 'trusted' = 'untrusted'): HookList => ({
  events,
  hooks,
  problems: [{ where: 'Stop[0].hooks[1]', message: 'hooks of type "http" are not supported by TinyElf (only "command"); not run' }],
  settingsPath: '/data/settings.json',
  project: {
    workspace: '/w',
    hash: 'abc',
    trust,
    paths: ['.tinyelf/settings.json', '.claude/settings.json'],
    files: [{ path: '.claude/settings.json', config: { PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write' }] }] } }],
  },
});

const initial: HooksConfig = {
  PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh', timeout: 5 }] }],
  Stop: [{ hooks: [{ type: 'command', command: 'make check' }, { type: 'http' }] }],
};

vi.mock('../../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/api')>();
  return {
    ...actual,
    listHooks: vi.fn(async () => list(initial)),
    saveHooks: vi.fn(async (_scope: unknown, hooks: HooksConfig) => list(hooks)),
    setHooksTrust: vi.fn(async (_scope: unknown, trust: 'trusted') => list(initial, trust)),
  };
});

import * as api from '../../lib/api';
import { activeId } from '../../lib/stores/chat';
import { hookList } from '../../lib/stores/hooks';
import { language, toasts } from '../../lib/stores/ui';
import HooksSection from './HooksSection.svelte';

beforeEach(() => {
  language.set('en');
  activeId.set('s1');
  hookList.set(null);
});

afterEach(() => vi.clearAllMocks());

describe('Settings → Hooks', { timeout: 20_000 }, () => {
  it('lists your hooks, what cannot run, and the folder\'s project hooks with their trust', async () => {
    render(HooksSection);
    await screen.findByText('./guard.sh');
    expect(api.listHooks).toHaveBeenCalledWith({ sessionId: 's1' });
    const rows = screen.getAllByRole('row').slice(1);
    const cells = (r: HTMLElement) => within(r).getAllByRole('cell').map((c) => c.textContent?.replace(/\s+/g, ' ').trim()).join(' | ');
    expect(rows.map(cells)).toEqual([
      'PreToolUse | Bash | ./guard.sh | 5 s | Edit Remove',
      'Stop | all | make check | 60 s | Edit Remove',
      'Stop | all | http: not run (only "command" hooks run in TinyElf) | 60 s | Remove',
    ]);
    expect(screen.getByText(/hooks of type "http" are not supported/)).toBeTruthy();
    expect(screen.getByText('npx prettier --write')).toBeTruthy();
    expect(screen.getByText('Not decided: TinyElf asks before they first run')).toBeTruthy();
    expect(screen.getByText(/Saved in the "hooks" section of \/data\/settings.json/)).toBeTruthy();
  });

  it('adds a hook in Claude Code\'s shape', async () => {
    render(HooksSection);
    await screen.findByText('./guard.sh');
    await fireEvent.click(screen.getByRole('button', { name: 'Add a hook' }));
    const form = screen.getByRole('form', { name: 'New hook' });
    await fireEvent.change(within(form).getByRole('combobox', { name: 'Event' }), { target: { value: 'PostToolUse' } });
    await fireEvent.input(within(form).getByRole('combobox', { name: /Matcher/ }), { target: { value: 'Edit|Write' } });
    await fireEvent.input(within(form).getByRole('textbox', { name: /Command/ }), { target: { value: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh' } });
    await fireEvent.input(within(form).getByRole('spinbutton'), { target: { value: '30' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Save' }));
    expect(api.saveHooks).toHaveBeenCalledWith({ sessionId: 's1' }, {
      ...initial,
      PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh', timeout: 30 }] }],
    });
    await vi.waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(get(toasts).some((t) => t.text.includes('Hooks saved'))).toBe(true);
  });

  it('edits and removes a hook', async () => {
    render(HooksSection);
    await screen.findByText('./guard.sh');
    await fireEvent.click(screen.getByRole('button', { name: 'Edit the PreToolUse hook ./guard.sh' }));
    const form = screen.getByRole('form', { name: 'Edit hook' });
    expect((within(form).getByRole('textbox', { name: /Command/ }) as HTMLTextAreaElement).value).toBe('./guard.sh');
    await fireEvent.input(within(form).getByRole('textbox', { name: /Command/ }), { target: { value: './guard.sh --strict' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Save' }));
    expect(vi.mocked(api.saveHooks).mock.calls[0][1].PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh --strict', timeout: 5 }] }]);
    await fireEvent.click(await screen.findByRole('button', { name: 'Remove the Stop hook make check' }));
    expect(vi.mocked(api.saveHooks).mock.calls[1][1].Stop).toEqual([{ hooks: [{ type: 'http' }] }]);
  });

  it('trusts the folder\'s project hooks', async () => {
    render(HooksSection);
    await screen.findByText('npx prettier --write');
    await fireEvent.click(screen.getByRole('button', { name: 'Trust' }));
    expect(api.setHooksTrust).toHaveBeenCalledWith({ sessionId: 's1' }, 'trusted');
    await screen.findByText('Trusted: they run');
    expect(screen.queryByRole('button', { name: 'Trust' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Ask again' })).toBeTruthy();
  });
});
