import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvalMsg, sessionView, toolMsg } from '../../test/fixtures';

vi.mock('../../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/api')>();
  return { ...actual, approve: vi.fn(async () => ({})), getSession: vi.fn(async () => sessionView()) };
});

import * as api from '../../lib/api';
import { activeId, view } from '../../lib/stores/chat';
import { language } from '../../lib/stores/ui';
import ApprovalDock from '../ApprovalDock.svelte';

const args = JSON.stringify({ name: 'deploy', folder: '/w/.tinyelf/skills/deploy', allowedTools: 'Bash(git:*)' });

beforeEach(() => {
  activeId.set('s1');
  view.set(
    sessionView({
      running: true,
      pending: ['k1'],
      messages: [
        toolMsg(5, { callId: 'k1', name: 'read_skill', arguments: '{"name":"deploy"}', status: 'awaiting_approval' }),
        approvalMsg(6, {
          callId: 'k1', name: 'read_skill', arguments: args, kind: 'skill_trust', skill: 'deploy',
          question: "This folder's skill \"deploy\" wants to guide the agent; it may ask to run Bash(git:*).",
        }),
      ],
    }),
  );
});

afterEach(() => vi.clearAllMocks());

describe('the trust card of a project skill', { timeout: 20_000 }, () => {
  it('asks the question with the folder and the tools, and trusts with Enter', async () => {
    language.set('en');
    render(ApprovalDock);
    expect(screen.getByRole('heading', { name: /Trust this folder's skill “deploy”\?/ })).toBeTruthy();
    expect(screen.getByText(/wants to guide the agent; it may ask to run Bash\(git:\*\)/)).toBeTruthy();
    expect(screen.getByText('/w/.tinyelf/skills/deploy')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Allow once/ })).toBeNull();
    expect(screen.getByText("Enter or A: trust in this folder · D or Esc: don't trust")).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: /Trust in this folder/ }));
    expect(api.approve).toHaveBeenCalledWith('s1', 'k1', 'allow_always', undefined);
  });

  it('refuses with D, without asking for a reason, in Japanese too', async () => {
    language.set('ja');
    render(ApprovalDock);
    expect(screen.getByRole('button', { name: /このフォルダーで信頼する/ })).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'd' });
    await vi.waitFor(() => expect(api.approve).toHaveBeenCalledWith('s1', 'k1', 'deny', ''));
  });
});
