import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import { mcpServer } from '../../test/fixtures';

vi.mock('../api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../api')>();
  return { ...actual, listMCPServers: vi.fn(async () => []), listMCPPrompts: vi.fn(async () => []) };
});

import { applyMCPChange, mcpServers, shortToolName } from './mcp';

describe('applyMCPChange', () => {
  it('patches the state and tools of the server the event names', () => {
    mcpServers.set([mcpServer(), mcpServer({ config: { name: 'other' } })]);
    applyMCPChange({
      server: 'files',
      reason: 'failed: exit 3',
      state: { name: 'files', type: 'stdio', status: 'failed', error: 'exit 3', stderr: ['boom'], since: '' },
    });
    const [files, other] = get(mcpServers);
    expect(files.state.status).toBe('failed');
    expect(files.tools).toEqual([]);
    expect(other.state.status).toBe('connected');
  });
});

describe('shortToolName', () => {
  it('drops the mcp__server__ prefix', () => {
    expect(shortToolName('mcp__files__read', 'files')).toBe('read');
    expect(shortToolName('mcp__my_srv__do__it', 'my srv')).toBe('do__it');
  });
});
