import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UserToolListing } from '../../lib/types';

function listing(over: Partial<UserToolListing> = {}): UserToolListing {
  return {
    agent: 'default',
    commonDir: '/data/common_tools',
    personalDir: '/data/agents/default/tools',
    agentDir: '/data/agents/default',
    scannedAt: '2026-12-01T09:00:00Z',
    permissions: { version: 1, tool_creation: {}, external_tools: [] },
    vaultNames: [],
    problems: [],
    skipped: [{ tool: 'bash', origin: 'personal', path: '/data/agents/default/tools/bash.py', message: 'its name is taken by the core tool Bash; rename the file' }],
    tools: [
      {
        name: 'mail',
        kind: 'python',
        origin: 'personal',
        path: '/data/agents/default/tools/mail.py',
        dir: '/data/agents/default/tools',
        overrides: true,
        hasCli: true,
        actions: [
          { schema: 'mail_send', action: 'send', description: 'Sends mail.', parameters: {}, readOnly: false, asks: true, gated: true, allowed: false, background: false, expectedSeconds: 15 },
          { schema: 'mail_list', action: 'list', description: 'Lists mail.', parameters: {}, readOnly: true, asks: true, gated: false, allowed: false, background: true, expectedSeconds: 60 },
        ],
        credentials: [{ env: 'MAIL_TOKEN', from: '' }],
        errors: [],
        warnings: [],
      },
      {
        name: 'broken',
        kind: 'executable',
        origin: 'common',
        path: '/data/common_tools/broken.tool.json',
        dir: '/data/common_tools',
        hasCli: false,
        actions: [],
        credentials: [],
        errors: ['its command ./broken.sh does not exist'],
        warnings: [],
      },
    ],
    ...over,
  };
}

vi.mock('../../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/api')>();
  return {
    ...actual,
    listUserTools: vi.fn(async () => listing()),
    refreshUserTools: vi.fn(async () => listing({ skipped: [] })),
    listToolTasks: vi.fn(async () => [
      { id: 'task_1', agent: 'default', tool: 'mail', action: 'list', schema: 'mail_list', state: 'done', result: '3 new mails', created: '2026-12-01T09:00:00Z' },
    ]),
    saveToolPermissions: vi.fn(async (_agent: string, permissions: UserToolListing['permissions']) => listing({ permissions })),
    shareUserTool: vi.fn(async () => ({ message: 'Shared mail' })),
    setToolSecret: vi.fn(async () => ({})),
    openToolsFolder: vi.fn(async () => ({ path: '/data/agents/default/tools', opened: false })),
  };
});

import * as api from '../../lib/api';
import { language } from '../../lib/stores/ui';
import { userTools } from '../../lib/stores/usertools';
import ToolsSection from './ToolsSection.svelte';

beforeEach(() => {
  language.set('en');
  userTools.set(null);
});
afterEach(() => vi.clearAllMocks());

describe('ToolsSection', () => {
  it('lists the tools with kind, source, actions, errors and what was skipped', async () => {
    render(ToolsSection);
    await screen.findByText('mail');
    expect(screen.getByText('/data/agents/default/tools')).toBeTruthy();
    expect(screen.getByText('Python')).toBeTruthy();
    expect(screen.getByText('Replaces a common tool')).toBeTruthy();
    expect(screen.getByText('mail_send')).toBeTruthy();
    expect(screen.getByText('Gated: not allowed')).toBeTruthy();
    expect(screen.getByText('Background')).toBeTruthy();
    expect(screen.getByText('Asks first: the agent may rewrite it')).toBeTruthy();
    expect(screen.getByText('Not set')).toBeTruthy();
    expect(screen.getByText('This tool failed to load:')).toBeTruthy();
    expect(screen.getByText('its command ./broken.sh does not exist')).toBeTruthy();
    expect(screen.getAllByRole('alert').some((a) => a.textContent?.includes('its name is taken by the core tool Bash'))).toBe(true);
    expect(screen.getByText('3 new mails')).toBeTruthy();
  });

  it('allows a gated action and turns tool sharing on through the permissions', async () => {
    render(ToolsSection);
    await screen.findByText('mail');
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Allow the gated action mail_send' }));
    expect(api.saveToolPermissions).toHaveBeenCalledWith('default', { version: 1, tool_creation: {}, external_tools: ['mail_send'] });
    await fireEvent.click(screen.getByRole('checkbox', { name: 'The agent may write common tools and share its own' }));
    await waitFor(() =>
      expect(api.saveToolPermissions).toHaveBeenLastCalledWith('default', expect.objectContaining({ tool_creation: { shared: true } })),
    );
  });

  it('refreshes, shares a personal tool and stores a credential in the vault', async () => {
    render(ToolsSection);
    await screen.findByText('mail');
    await fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(api.refreshUserTools).toHaveBeenCalledWith('default');
    await fireEvent.click(screen.getByRole('button', { name: 'Share' }));
    expect(api.shareUserTool).toHaveBeenCalledWith('default', 'mail', false);
    await fireEvent.click(screen.getByRole('button', { name: 'Store in the vault' }));
    await fireEvent.input(screen.getByLabelText('Value of MAIL_TOKEN'), { target: { value: 'secret-value' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(api.setToolSecret).toHaveBeenCalledWith('MAIL_TOKEN', 'secret-value');
    // The form is gone and the focus is back on the credential's button.
    await waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Store in the vault'));
    expect(screen.queryByLabelText('Value of MAIL_TOKEN')).toBeNull();
  });

  it('removes a credential stored in the vault, and never shows its value', async () => {
    vi.mocked(api.listUserTools).mockImplementation(async () => listing({ vaultNames: ['MAIL_TOKEN'] }));
    render(ToolsSection);
    await screen.findByText('mail');
    expect(screen.getByRole('button', { name: 'Replace in the vault' })).toBeTruthy();
    expect(document.body.textContent).not.toContain('secret-value');
    vi.mocked(api.listUserTools).mockImplementation(async () => listing());
    await fireEvent.click(screen.getByRole('button', { name: 'Remove MAIL_TOKEN from the vault' }));
    expect(api.setToolSecret).toHaveBeenCalledWith('MAIL_TOKEN', '');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Remove MAIL_TOKEN from the vault' })).toBeNull());
    expect(screen.getByRole('button', { name: 'Store in the vault' })).toBeTruthy();
  });

  it('shows the folder path when the desktop cannot open it', async () => {
    render(ToolsSection);
    await screen.findByText('mail');
    await fireEvent.click(screen.getByRole('button', { name: 'Open personal folder' }));
    expect(await screen.findByText('The folder could not be opened here; it is /data/agents/default/tools')).toBeTruthy();
  });

  it('speaks Japanese', async () => {
    language.set('ja');
    render(ToolsSection);
    await screen.findByText('mail');
    expect(screen.getByText('個人フォルダを開く')).toBeTruthy();
    expect(screen.getByText('ゲート: 未許可')).toBeTruthy();
  });
});
