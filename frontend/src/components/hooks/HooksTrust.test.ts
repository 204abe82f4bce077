import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvalMsg, sessionView } from '../../test/fixtures';

vi.mock('../../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/api')>();
  return { ...actual, approve: vi.fn(async () => ({})), getSession: vi.fn(async () => sessionView()) };
});

import * as api from '../../lib/api';
import { buildRows } from '../../lib/rows';
import { activeId, view } from '../../lib/stores/chat';
import { language } from '../../lib/stores/ui';
import type { UIMessage } from '../../lib/types';
import ApprovalDock from '../ApprovalDock.svelte';
import ToolCard from '../ToolCard.svelte';

const args = JSON.stringify({
  workspace: '/w',
  files: ['.claude/settings.json'],
  hooks: [{ event: 'PreToolUse', matcher: 'Bash', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', source: '.claude/settings.json' }],
});

beforeEach(() => {
  language.set('en');
  activeId.set('s1');
  view.set(
    sessionView({
      running: true,
      pending: ['hooks-trust-1'],
      messages: [
        approvalMsg(3, {
          callId: 'hooks-trust-1', name: 'hooks', arguments: args, kind: 'hooks_trust',
          question: 'This workspace has project hooks in .claude/settings.json: commands that run on this computer at the agent\'s steps. Let them run in w?',
        }),
      ],
    }),
  );
});

afterEach(() => vi.clearAllMocks());

describe('the trust card of a folder\'s project hooks', { timeout: 20_000 }, () => {
  it('lists the files and commands, and lets them run with Enter', async () => {
    render(ApprovalDock);
    expect(screen.getByRole('heading', { name: "Let this folder's hooks run?" })).toBeTruthy();
    expect(screen.getByText('.claude/settings.json')).toBeTruthy();
    expect(screen.getByText('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh')).toBeTruthy();
    expect(screen.getByText('(Bash)')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Allow once/ })).toBeNull();
    await fireEvent.keyDown(window, { key: 'Enter' });
    await vi.waitFor(() => expect(api.approve).toHaveBeenCalledWith('s1', 'hooks-trust-1', 'allow_once', undefined));
  });

  it('refuses with D', async () => {
    language.set('ja');
    render(ApprovalDock);
    expect(screen.getByRole('button', { name: /実行を許可する/ })).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'd' });
    await vi.waitFor(() => expect(api.approve).toHaveBeenCalledWith('s1', 'hooks-trust-1', 'deny', ''));
  });
});

describe('hook runs in the chat', () => {
  it('lists a tool call\'s hooks under its card, and shows a hook\'s block as Blocked', () => {
    render(ToolCard, {
      seq: 4,
      running: false,
      tool: {
        callId: 'c1', name: 'Bash', arguments: '{"command":"rm -rf build"}', status: 'denied', decision: 'deny', decidedBy: 'hook',
        reason: 'no rm -rf here', result: 'A PreToolUse hook blocked this call to Bash: no rm -rf here', isError: true,
        meta: { denied: true, hook: true },
        hooks: [{ event: 'PreToolUse', callId: 'c1', tool: 'Bash', command: './guard.sh', durationMs: 8, exitCode: 2, decision: 'deny', reason: 'no rm -rf here' }],
      },
    });
    expect(screen.getByText('Blocked by a hook:')).toBeTruthy();
    expect(screen.getByText('PreToolUse hook')).toBeTruthy();
    expect(screen.getByText('blocked the call')).toBeTruthy();
  });

  it('makes a row of a hook that belongs to no call', () => {
    const hook: UIMessage = { seq: 7, kind: 'hook', time: '', hook: { event: 'Stop', command: 'make check', durationMs: 5, exitCode: 2, decision: 'block', context: 'Stop hook feedback:\nfix it' } };
    const rows = buildRows([{ seq: 1, kind: 'user', time: '', text: 'hi' }, hook, { seq: 8, kind: 'hook', time: '' }]);
    expect(rows.map((r) => r.kind)).toEqual(['user', 'hook']);
  });
});
