import { get } from 'svelte/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { session } from '../../test/fixtures';

vi.mock('../api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../api')>();
  return {
    ...actual,
    deleteSession: vi.fn(async () => ({})),
    restoreSession: vi.fn(async () => session()),
    listSessions: vi.fn(async () => [session()]),
    search: vi.fn(async () => [
      { sessionId: 's1', sessionTitle: 'Fix', seq: 2, role: 'user', time: '', snippet: 'a <mark>b</mark>' },
    ]),
  };
});

import * as api from '../api';
import { deleteSession, searchResults, sessions, setSearch } from './sessions';
import { toasts } from './ui';

afterEach(() => {
  vi.clearAllMocks();
  toasts.set([]);
});

describe('deleteSession', () => {
  it('removes the session and offers an Undo that restores it', async () => {
    sessions.set([session(), session({ id: 's2' })]);
    const left = vi.fn();
    await deleteSession(session(), left, 'Fix the tests');
    expect(api.deleteSession).toHaveBeenCalledWith('s1');
    expect(get(sessions).map((s) => s.id)).toEqual(['s2']);
    expect(left).toHaveBeenCalled();
    const toast = get(toasts)[0];
    expect(toast.text).toBe('Deleted “Fix the tests”.');
    expect(toast.action?.label).toBe('Undo');
    toast.action?.run();
    await vi.waitFor(() => expect(api.restoreSession).toHaveBeenCalledWith('s1'));
    await vi.waitFor(() => expect(get(sessions).map((s) => s.id)).toEqual(['s1']));
  });
});

describe('search', () => {
  it('searches after a pause in typing and clears with an empty query', async () => {
    setSearch('b');
    await vi.waitFor(() => expect(get(searchResults)).toHaveLength(1));
    expect(api.search).toHaveBeenCalledWith('b');
    setSearch('');
    expect(get(searchResults)).toBeNull();
  });
});

describe('trackApprovals', () => {
  it('marks a session while one of its calls waits for approval', async () => {
    const { awaiting, trackApprovals } = await import('./sessions');
    trackApprovals('s9', 'approval.asked', { callId: 'a' });
    trackApprovals('s9', 'approval.asked', { callId: 'b' });
    expect(get(awaiting).s9).toEqual(['a', 'b']);
    trackApprovals('s9', 'approval.answered', { callId: 'a' });
    expect(get(awaiting).s9).toEqual(['b']);
    trackApprovals('s9', 'turn.state', { running: false });
    expect(get(awaiting).s9).toEqual([]);
  });
});

describe('loadSessions', () => {
  it('restores running sessions and waiting approvals from the list after a reload', async () => {
    const { awaiting, loadSessions, runningIds } = await import('./sessions');
    vi.mocked(api.listSessions).mockResolvedValueOnce([
      session({ id: 'r1', running: true, pending: ['call_7'] }),
      session({ id: 'r2', running: false, pending: [] }),
    ]);
    await loadSessions();
    expect(get(runningIds).has('r1')).toBe(true);
    expect(get(runningIds).has('r2')).toBe(false);
    expect(get(awaiting).r1).toEqual(['call_7']);
    expect(get(awaiting).r2 ?? []).toEqual([]);
  });
});
