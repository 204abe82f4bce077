import { get } from 'svelte/store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvalMsg, assistantMsg, session, sessionView, toolMsg, userMsg } from '../../test/fixtures';

vi.mock('../api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../api')>();
  return {
    ...actual,
    getSession: vi.fn(),
    createSession: vi.fn(),
    sendMessage: vi.fn(),
    approve: vi.fn(),
    setMode: vi.fn(),
    cancel: vi.fn(),
    listSessions: vi.fn(async () => []),
  };
});

import * as api from '../api';
import {
  activeId,
  answerApproval,
  draftMode,
  draftWorkspace,
  emptyLive,
  live,
  onSessionEvent,
  pendingApprovals,
  pickAgent,
  send,
  setMode,
  view,
} from './chat';
import { agents, draftAgent } from './agents';
import { sessions } from './sessions';
import { childApprovals, subagentUpdates, trackSubagentEvent } from './subagents';
import { toasts } from './ui';

const ev = (type: string, data: unknown, seq = 0) => ({ sessionId: 's1', seq, type, time: '', data });

beforeEach(() => {
  activeId.set('s1');
  view.set(sessionView({ running: true }));
  live.set(emptyLive());
  toasts.set([]);
  vi.mocked(api.getSession).mockResolvedValue(sessionView());
});

afterEach(() => {
  vi.clearAllMocks();
});

describe('streaming', () => {
  it('shows deltas as they come and keeps the answer until the log has it', async () => {
    onSessionEvent(ev('message.delta', { text: 'Hello ' }));
    onSessionEvent(ev('message.delta', { text: 'world' }));
    expect(get(live).streaming).toBe('Hello world');

    vi.mocked(api.getSession).mockResolvedValue(
      sessionView({ session: session({ lastSeq: 12 }), messages: [assistantMsg(12, 'Hello world')], running: true }),
    );
    onSessionEvent(ev('assistant.message', { text: 'Hello world' }, 12));
    expect(get(live).streaming).toBe('');
    expect(get(live).settled).toEqual({ seq: 12, text: 'Hello world' });
    await vi.waitFor(() => expect(get(live).settled).toBeNull());
    expect(get(view)?.messages).toHaveLength(1);
  });

  it('ignores events of other sessions', () => {
    onSessionEvent({ ...ev('message.delta', { text: 'x' }), sessionId: 'other' });
    expect(get(live).streaming).toBe('');
  });

  it('collects tool call drafts, progress lines and retry notices', () => {
    onSessionEvent(ev('tool_call.delta', { index: 0, id: 'c1', name: 'Bash', arguments: '' }));
    onSessionEvent(ev('tool_call.delta', { index: 0, id: '', name: '', arguments: '{"command"' }));
    expect(get(live).drafts).toEqual([{ index: 0, id: 'c1', name: 'Bash', arguments: '{"command"' }]);
    onSessionEvent(ev('tool.progress', { callId: 'c1', message: 'line 1' }));
    expect(get(live).progress.c1).toEqual(['line 1']);
    onSessionEvent(ev('llm.retry', { delayMs: 2000, error: '429' }));
    expect(get(live).retry).toMatchObject({ delayMs: 2000, error: '429' });
  });

  it('shows an error that could not be saved to the history', () => {
    onSessionEvent(ev('turn.error', { kind: 'internal', message: 'the session history could not be saved' }));
    expect(get(toasts).at(-1)).toMatchObject({ kind: 'error', text: 'the session history could not be saved' });
  });

  it('stops showing a turn as running when it ends', async () => {
    onSessionEvent(ev('message.delta', { text: 'partial' }));
    onSessionEvent(ev('turn.state', { running: false, reason: 'cancelled' }));
    expect(get(view)?.running).toBe(false);
    expect(get(live).streaming).toBe('');
    await vi.waitFor(() => expect(api.getSession).toHaveBeenCalledWith('s1'));
  });
});

describe('send', () => {
  it('starts a session in the chosen folder and mode for a new chat', async () => {
    activeId.set(null);
    view.set(null);
    draftWorkspace.set('/work/demo');
    draftMode.set('plan');
    vi.mocked(api.createSession).mockResolvedValue(session({ id: 's2', workspace: '/work/demo', mode: 'plan', lastSeq: 1 }));
    vi.mocked(api.sendMessage).mockResolvedValue({});
    expect(await send('hello')).toBe(true);
    expect(api.createSession).toHaveBeenCalledWith('/work/demo', 'plan', null, 'default');
    expect(api.sendMessage).toHaveBeenCalledWith('s2', 'hello', []);
    expect(get(activeId)).toBe('s2');
    expect(get(live).outgoing).toEqual({ text: 'hello', afterSeq: 1, attachments: [] });
    expect(get(view)?.running).toBe(true);
  });

  it('starts it with the agent picked in the header', async () => {
    activeId.set(null);
    view.set(null);
    draftWorkspace.set('/work/demo');
    draftMode.set('default');
    draftAgent.set('researcher');
    vi.mocked(api.createSession).mockResolvedValue(session({ id: 's3', agent: 'researcher' }));
    vi.mocked(api.sendMessage).mockResolvedValue({});
    expect(await send('look into it')).toBe(true);
    expect(api.createSession).toHaveBeenCalledWith('/work/demo', 'default', null, 'researcher');
    draftAgent.set('default');
  });

  it("takes the picked agent's own permission mode, and the settings' one for a profile without", () => {
    agents.set([
      { name: 'default', default: true },
      { name: 'reviewer', permissionMode: 'plan', default: false },
    ]);
    draftMode.set('default');
    pickAgent('reviewer');
    expect(get(draftAgent)).toBe('reviewer');
    expect(get(draftMode)).toBe('plan');
    pickAgent('default');
    expect(get(draftAgent)).toBe('default');
    expect(get(draftMode)).toBe('default');
    agents.set([]);
  });

  it('says so when the session is still busy', async () => {
    vi.mocked(api.sendMessage).mockRejectedValue(new api.ApiError('busy', 'busy'));
    expect(await send('again')).toBe(false);
    expect(get(toasts)[0].text).toContain('still working');
    expect(get(live).outgoing).toBeNull();
  });
});

describe('approvals', () => {
  beforeEach(() => {
    view.set(
      sessionView({
        running: true,
        pending: ['call_1', 'call_2'],
        messages: [
          userMsg(2, 'go'),
          toolMsg(5, { status: 'awaiting_approval' }),
          approvalMsg(6),
          toolMsg(7, { callId: 'call_2', name: 'Bash', status: 'awaiting_approval' }),
          approvalMsg(8, { callId: 'call_2', name: 'Bash' }),
          approvalMsg(3, { callId: 'old', decision: 'allow_once' }),
        ],
      }),
    );
  });

  it('queues the unanswered requests', () => {
    expect(get(pendingApprovals).map((m) => m.approval?.callId)).toEqual(['call_1', 'call_2']);
  });

  it('answers one and drops it from the queue at once', async () => {
    vi.mocked(api.approve).mockResolvedValue({});
    expect(await answerApproval('call_1', 'deny', 'not now')).toBe(true);
    expect(api.approve).toHaveBeenCalledWith('s1', 'call_1', 'deny', 'not now');
    expect(get(pendingApprovals).map((m) => m.approval?.callId)).toEqual(['call_2']);
  });
});

describe("subagents' approvals", () => {
  const child = (id: string, parentId: string) => session({ id, parentId, agent: 'researcher', title: `Child ${id}` });
  beforeEach(() => {
    childApprovals.set([]);
    sessions.set([session(), child('c1', 's1'), child('g1', 'c1'), child('x1', 'other')]);
    view.set(sessionView({ running: true, pending: ['call_1'], messages: [toolMsg(5, { status: 'awaiting_approval' }), approvalMsg(6)] }));
  });
  const asked = (sessionId: string, rootId: string, callId: string) => ({
    sessionId, parentId: 'p', rootId, seq: 4, type: 'approval.asked', time: '', data: { callId, name: 'Write', arguments: '{}' },
  });

  it("queues those of the open session's subagents at any depth, labelled, after its own", () => {
    trackSubagentEvent(asked('c1', 's1', 'w1'));
    trackSubagentEvent(asked('g1', 's1', 'w2'));
    trackSubagentEvent(asked('x1', 'other', 'w3'));
    const queue = get(pendingApprovals);
    expect(queue.map((m) => [m.sessionId ?? 's1', m.approval?.callId])).toEqual([
      ['s1', 'call_1'],
      ['c1', 'w1'],
      ['g1', 'w2'],
    ]);
    expect(queue[1].from).toEqual({ agent: 'researcher', title: 'Child c1' });
    // The subagent in between shows its own subagent's question too.
    activeId.set('c1');
    view.set(sessionView({ session: session({ id: 'c1' }) }));
    expect(get(pendingApprovals).map((m) => m.approval?.callId)).toEqual(['w2']);
    activeId.set('s1');
  });

  it("answers in the subagent's session and drops the question", async () => {
    trackSubagentEvent(asked('c1', 's1', 'w1'));
    vi.mocked(api.approve).mockResolvedValue({});
    expect(await answerApproval('w1', 'allow_once', undefined, 'c1')).toBe(true);
    expect(api.approve).toHaveBeenCalledWith('c1', 'w1', 'allow_once', undefined);
    expect(get(pendingApprovals).map((m) => m.approval?.callId)).toEqual(['call_1']);
  });

  it('forgets a question answered elsewhere or whose turn ended', () => {
    trackSubagentEvent(asked('c1', 's1', 'w1'));
    trackSubagentEvent(asked('g1', 's1', 'w2'));
    trackSubagentEvent({ sessionId: 'c1', rootId: 's1', seq: 5, type: 'approval.answered', time: '', data: { callId: 'w1' } });
    trackSubagentEvent({ sessionId: 'g1', rootId: 's1', type: 'turn.state', time: '', data: { running: false } });
    expect(get(childApprovals)).toEqual([]);
  });

  it("follows a spawn_agent card's run", () => {
    trackSubagentEvent({ sessionId: 's1', type: 'subagent.update', time: '', data: { callId: 'sp1', run: { runId: 'c1', sessionId: 'c1', state: 'running', iterations: 2 } } });
    expect(get(subagentUpdates)['s1:sp1']).toMatchObject({ sessionId: 'c1', iterations: 2 });
  });
});

describe('setMode', () => {
  it('changes the open session', async () => {
    vi.mocked(api.setMode).mockResolvedValue(session({ mode: 'plan' }));
    await setMode('plan');
    expect(api.setMode).toHaveBeenCalledWith('s1', 'plan');
    expect(get(view)?.session.mode).toBe('plan');
  });

  it('changes the next new chat without calling the backend', async () => {
    activeId.set(null);
    await setMode('auto');
    expect(api.setMode).not.toHaveBeenCalled();
    expect(get(draftMode)).toBe('auto');
  });
});
