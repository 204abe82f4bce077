import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvalMsg, session, sessionView, toolMsg } from '../test/fixtures';

vi.mock('../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../lib/api')>();
  return {
    ...actual,
    approve: vi.fn(async () => ({})),
    getSession: vi.fn(async () => sessionView()),
    listSubagents: vi.fn(async () => []),
    listAgents: vi.fn(async () => [{ name: 'default', default: true, description: 'The general agent new chats use.' }]),
    saveAgent: vi.fn(),
    deleteAgent: vi.fn(),
  };
});

import * as api from '../lib/api';
import { activeId, view } from '../lib/stores/chat';
import { runningIds, sessions } from '../lib/stores/sessions';
import { childApprovals, subagentUpdates } from '../lib/stores/subagents';
import { language } from '../lib/stores/ui';
import ApprovalDock from './ApprovalDock.svelte';
import AgentsSection from './settings/AgentsSection.svelte';
import Sidebar from './Sidebar.svelte';
import ToolCard from './ToolCard.svelte';

beforeEach(() => {
  language.set('en');
  activeId.set('s1');
  childApprovals.set([]);
  subagentUpdates.set({});
  runningIds.set(new Set());
});

afterEach(() => {
  vi.clearAllMocks();
});

describe('a spawn_agent card', () => {
  const spawn = toolMsg(5, { callId: 'sp1', name: 'spawn_agent', arguments: '{"prompt":"find the bug"}', status: 'pending' }).tool!;

  it('follows its subagent live and opens its session', async () => {
    subagentUpdates.set({ 's1:sp1': { runId: 'c1', sessionId: 'c1', agent: 'researcher', background: false, state: 'running', iterations: 3, progress: 'running Grep' } });
    render(ToolCard, { tool: spawn, seq: 5, running: true });
    const card = screen.getByTestId('subagent-card');
    expect(card.textContent).toContain('Subagent researcher');
    expect(card.textContent).toContain('working');
    expect(card.textContent).toContain('3 model calls');
    expect(card.textContent).toContain('running Grep');
    await fireEvent.click(within(card).getByRole('button', { name: /Open its session/ }));
    expect(api.getSession).toHaveBeenCalledWith('c1');
  });

  it('shows the recorded result and what was not given', () => {
    const done = { ...spawn, status: 'done' as const, meta: { subagent: { runId: 'c1', sessionId: 'c1', agent: 'default', background: false, state: 'done', iterations: 2, notGiven: ['Write (you do not have it)'] } } };
    render(ToolCard, { tool: done, seq: 5, running: false });
    expect(screen.getByTestId('subagent-card').textContent).toContain('done');
    expect(screen.getByText('Not given: Write (you do not have it)')).toBeTruthy();
  });

  it("links to its session's capability changes", async () => {
    const done = { ...spawn, status: 'done' as const, meta: { subagent: { runId: 'c1', sessionId: 'c1', agent: 'default', background: false, state: 'done', iterations: 2, capabilityDiffs: 2 } } };
    render(ToolCard, { tool: done, seq: 5, running: false });
    await fireEvent.click(screen.getByRole('button', { name: 'Its tool set changed 2×: see its session' }));
    expect(api.getSession).toHaveBeenCalledWith('c1');
  });
});

describe("a subagent's approval in the parent's dock", () => {
  it('names the subagent and answers in its session', async () => {
    sessions.set([session(), session({ id: 'c1', parentId: 's1', agent: 'researcher', title: 'Find the bug' })]);
    view.set(sessionView({ running: true, pending: ['call_1'], messages: [toolMsg(5, { status: 'awaiting_approval' }), approvalMsg(6)] }));
    childApprovals.set([{ sessionId: 'c1', rootId: 's1', seq: 4, approval: { callId: 'w1', name: 'Bash', arguments: '{"command":"make"}' } }]);
    render(ApprovalDock);
    await fireEvent.click(screen.getByRole('button', { name: 'Next request' }));
    expect(screen.getByTestId('approval-from').textContent).toContain('Asked by subagent researcher: Find the bug');
    await fireEvent.click(screen.getByRole('button', { name: /Allow once/ }));
    expect(api.approve).toHaveBeenCalledWith('c1', 'w1', 'allow_once', undefined);
  });
});

describe('the sidebar', () => {
  it("nests subagents under their parent, unfolded while one works", async () => {
    sessions.set([
      session({ id: 's1', title: 'Parent' }),
      session({ id: 'c1', parentId: 's1', title: 'Child one', createdAt: '2026-11-30T09:01:00Z' }),
      session({ id: 'c2', parentId: 's1', title: 'Child two', createdAt: '2026-11-30T09:02:00Z' }),
      session({ id: 'g1', parentId: 'c2', title: 'Grandchild' }),
      session({ id: 'o1', parentId: 'gone', title: 'Orphan' }),
    ]);
    activeId.set('s1');
    render(Sidebar);
    expect(screen.getByText('Parent')).toBeTruthy();
    expect(screen.getByText('Orphan')).toBeTruthy();
    expect(screen.queryByText('Child one')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: /Show 2 subagents/ }));
    expect(screen.getByText('Child one')).toBeTruthy();
    expect(screen.getByText('Child two')).toBeTruthy();
    runningIds.set(new Set(['g1']));
    sessions.update((l) => [...l]);
    await vi.waitFor(() => expect(screen.getByText('Grandchild')).toBeTruthy());
  });
});

describe('Settings → Agents', () => {
  it('lists the default agent, which cannot be deleted, and adds one', async () => {
    vi.mocked(api.saveAgent).mockResolvedValue([
      { name: 'default', default: true },
      { name: 'researcher', default: false, description: 'reads', allowedTools: ['Read', 'Grep'] },
    ]);
    render(AgentsSection);
    await vi.waitFor(() => expect(screen.getByTestId('agent-default')).toBeTruthy());
    const def = screen.getByTestId('agent-default');
    expect(within(def).queryByRole('button', { name: 'Delete' })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: /Add an agent/ }));
    await fireEvent.input(screen.getByLabelText(/^Name/), { target: { value: 'researcher' } });
    await fireEvent.input(screen.getByLabelText(/^Allowed tools/), { target: { value: 'Read\nGrep' } });
    await fireEvent.input(screen.getByLabelText(/^Own MCP servers/), { target: { value: 'notes python3 "my server.py"' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(api.saveAgent).toHaveBeenCalledWith(
      expect.objectContaining({
        name: 'researcher',
        allowedTools: ['Read', 'Grep'],
        directMcpServers: [{ name: 'notes', type: 'stdio', command: 'python3', args: ['my server.py'] }],
      }),
      undefined,
    );
    await vi.waitFor(() => expect(screen.getByTestId('agent-researcher')).toBeTruthy());
  });
});
