import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvalMsg, mcpServer, sessionView, toolMsg } from '../test/fixtures';

vi.mock('../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../lib/api')>();
  return {
    ...actual,
    approve: vi.fn(async () => ({})),
    getSession: vi.fn(async () => sessionView()),
    openExternal: vi.fn(),
    signInMCPServer: vi.fn(async () => ({ url: 'http://127.0.0.1:9/authorize?client_id=x' })),
    signOutMCPServer: vi.fn(async () => []),
    listMCPServers: vi.fn(async () => []),
    listMCPPrompts: vi.fn(async () => []),
  };
});

import * as api from '../lib/api';
import { activeId, view } from '../lib/stores/chat';
import { language } from '../lib/stores/ui';
import type { ApprovalView } from '../lib/types';
import ApprovalDock from './ApprovalDock.svelte';
import McpServerCard from './settings/McpServerCard.svelte';

const schema = {
  type: 'object' as const,
  required: ['name'],
  properties: {
    name: { type: 'string' as const, title: 'Name', default: 'Ada' },
    age: { type: 'integer' as const, title: 'Age', default: 36 },
    color: { type: 'string' as const, title: 'Colour', enum: ['red', 'green', 'blue'], default: 'green' },
    subscribe: { type: 'boolean' as const, title: 'Subscribe' },
  },
};

function ask(approval: Partial<ApprovalView>) {
  view.set(
    sessionView({
      running: true,
      pending: ['call_1'],
      messages: [toolMsg(5, { name: 'mcp__crm__ask', status: 'awaiting_approval' }), approvalMsg(6, { name: 'mcp__crm__ask', ...approval })],
    }),
  );
}

beforeEach(() => {
  language.set('en');
  activeId.set('s1');
});
afterEach(() => vi.clearAllMocks());

describe('elicitation card', () => {
  it('builds the form from the schema with the defaults, and sends the typed values', async () => {
    ask({ kind: 'elicitation', server: 'crm', question: 'Who are you?', schema });
    render(ApprovalDock);
    expect(screen.getByRole('heading', { name: 'crm asks you' })).toBeTruthy();
    expect(screen.getByText('Who are you?')).toBeTruthy();
    const name = screen.getByLabelText(/Name/) as HTMLInputElement;
    expect(name.value).toBe('Ada');
    expect((screen.getByLabelText('Colour') as HTMLSelectElement).value).toBe('green');
    await fireEvent.input(name, { target: { value: 'Grace' } });
    await fireEvent.input(screen.getByLabelText('Age'), { target: { value: '41' } });
    await fireEvent.click(screen.getByLabelText('Subscribe'));
    await fireEvent.click(screen.getByRole('button', { name: /Send/ }));
    expect(api.approve).toHaveBeenCalledWith('s1', 'call_1', 'allow_once', undefined, { name: 'Grace', age: 41, color: 'green', subscribe: true });
  });

  it('declines with Esc', async () => {
    ask({ kind: 'elicitation', server: 'crm', question: 'Who?', schema });
    render(ApprovalDock);
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(api.approve).toHaveBeenLastCalledWith('s1', 'call_1', 'deny', '');
  });

  it('cancels with its button', async () => {
    ask({ kind: 'elicitation', server: 'crm', question: 'Who?', schema });
    render(ApprovalDock);
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(api.approve).toHaveBeenLastCalledWith('s1', 'call_1', 'cancel', undefined);
  });

  it('opens a URL-mode page only when the user says so', async () => {
    ask({ kind: 'elicitation', server: 'crm', question: 'Connect your account', url: 'https://example.com/connect' });
    render(ApprovalDock);
    expect(screen.getByRole('heading', { name: 'crm asks you to open a page' })).toBeTruthy();
    expect(screen.getByText('https://example.com/connect')).toBeTruthy();
    expect(api.openExternal).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByRole('button', { name: 'Open the page' }));
    expect(api.openExternal).toHaveBeenCalledWith('https://example.com/connect');
    expect(api.approve).toHaveBeenCalledWith('s1', 'call_1', 'allow_once', undefined);
  });
});

describe('sampling card', () => {
  it('shows the server, the prompt and the token limit; Enter allows', async () => {
    ask({
      kind: 'sampling', server: 'crm', maxTokens: 64,
      arguments: JSON.stringify({ systemPrompt: 'You summarize.', messages: [{ role: 'user', text: 'Summarize: the cat sat.' }] }),
    });
    render(ApprovalDock);
    expect(screen.getByRole('heading', { name: 'crm asks to use this session’s model' })).toBeTruthy();
    expect(screen.getByTestId('sampling-system').textContent).toBe('You summarize.');
    expect(screen.getByTestId('sampling-prompt').textContent).toBe('Summarize: the cat sat.');
    expect(screen.getByText('Up to 64 tokens')).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'Enter' });
    expect(api.approve).toHaveBeenCalledWith('s1', 'call_1', 'allow_once', undefined);
  });
});

describe('sign-in on the server card', () => {
  it('offers Sign in when the server asks, and opens the page in the browser', async () => {
    render(McpServerCard, {
      server: mcpServer({
        config: { name: 'linear', type: 'http', url: 'https://mcp.linear.app/mcp' },
        state: { name: 'linear', type: 'http', status: 'failed', error: 'needs you to sign in', since: '', auth: { signedIn: false, grant: 'authorization_code', required: true, reason: 'the server asks for a sign-in' } },
        tools: [],
      }),
    });
    expect(screen.getByText(/This server asks you to sign in/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(api.signInMCPServer).toHaveBeenCalledWith('linear');
    expect(api.openExternal).toHaveBeenCalledWith('http://127.0.0.1:9/authorize?client_id=x');
    expect(await screen.findByText(/Finish signing in in your browser/)).toBeTruthy();
  });

  it('shows who is signed in and until when, and signs out', async () => {
    render(McpServerCard, {
      server: mcpServer({
        config: { name: 'linear', type: 'http', url: 'https://mcp.linear.app/mcp' },
        state: { name: 'linear', type: 'http', status: 'connected', since: '', auth: { signedIn: true, account: 'ada@example.com', expiresAt: '2030-01-02T03:04:00Z', refreshable: true, grant: 'authorization_code' } },
      }),
    });
    const line = screen.getByTestId('mcp-signed-in').textContent ?? '';
    expect(line).toContain('Signed in as ada@example.com');
    expect(line).toContain('token expires');
    expect(line).toContain('2030');
    expect(screen.queryByRole('button', { name: 'Sign in' })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(api.signOutMCPServer).toHaveBeenCalledWith('linear');
  });
});
