import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mcpServer } from '../../test/fixtures';

vi.mock('../../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/api')>();
  return {
    ...actual,
    setMCPServerEnabled: vi.fn(async () => []),
    saveMCPServer: vi.fn(async () => []),
    restartMCPServer: vi.fn(async () => []),
    listMCPServers: vi.fn(async () => []),
    listMCPPrompts: vi.fn(async () => []),
  };
});

import * as api from '../../lib/api';
import { language } from '../../lib/stores/ui';
import McpServerCard from './McpServerCard.svelte';

beforeEach(() => language.set('en'));
afterEach(() => vi.clearAllMocks());

describe('McpServerCard', () => {
  it('shows a connected server with its tools', () => {
    render(McpServerCard, { server: mcpServer() });
    expect(screen.getByText('Connected')).toBeTruthy();
    expect(screen.getByText('read')).toBeTruthy();
    expect(screen.getByText('Tools (2)')).toBeTruthy();
  });

  it('shows why a server failed, with the tail of its stderr, and offers a restart', async () => {
    render(McpServerCard, {
      server: mcpServer({
        state: { name: 'files', type: 'stdio', status: 'failed', error: 'exited with status 3', stderr: ['error: FAKE_API_KEY is not set'], since: '' },
        tools: [],
      }),
    });
    expect(screen.getByText('Failed')).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('exited with status 3');
    expect(screen.getByText('error: FAKE_API_KEY is not set')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Restart' }));
    expect(api.restartMCPServer).toHaveBeenCalledWith('files');
  });

  it('enables and disables with a labelled switch', async () => {
    render(McpServerCard, { server: mcpServer() });
    const sw = screen.getByRole('switch', { name: 'Enable files' });
    await fireEvent.click(sw);
    expect(api.setMCPServerEnabled).toHaveBeenCalledWith('files', false);
  });
});

describe('McpServerCard secrets', () => {
  it('shows the masked values the backend sends, and the form keeps them masked on save', async () => {
    const masked = '\u2022'.repeat(8) + 'WXYZ';
    render(McpServerCard, {
      server: mcpServer({ config: { name: 'files', type: 'stdio', command: 'fake-mcp', env: { GITHUB_TOKEN: masked, LEVEL: 'debug' } } }),
    });
    expect(screen.getByText(`GITHUB_TOKEN=${masked}`)).toBeTruthy();
    expect(screen.getByText('LEVEL=debug')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    expect(screen.getByTestId('masked-hint').textContent).toContain('stored secrets');
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(api.saveMCPServer).toHaveBeenCalledWith(
      expect.objectContaining({ env: { GITHUB_TOKEN: masked, LEVEL: 'debug' } }),
      undefined,
    );
  });
});
