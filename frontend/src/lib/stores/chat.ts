// The open session. Its state comes from GetSession and is fetched again
// (coalesced) whenever a logged event for it arrives; what is not logged yet
// (the streaming answer, tool calls being written, progress lines, retry
// notices, the message just sent) lives in `live` until the next fetch shows
// the logged version.
import { derived, get, writable } from 'svelte/store';
import * as api from '../api';
import type { BackendEvent, PermissionMode, SessionView, UIMessage } from '../types';
import { coalesce } from '../util';
import { agents, draftAgent } from './agents';
import { loadSessions, sessions, setRunning } from './sessions';
import { childApprovals, dropChildApproval, isAncestor, loadChildApprovals, loadSubagentRuns, subagentLabel } from './subagents';
import { settings } from './settings';
import { composerFocus, t, toast, toastError } from './ui';

/** activeId is the open session, or null for a new chat. */
export const activeId = writable<string | null>(null);

/** view is the open session with its history, null for a new chat or while loading. */
export const view = writable<SessionView | null>(null);

/** viewLoading is true while the first fetch of an opened session runs. */
export const viewLoading = writable(false);

/** ToolDraft is a tool call the model is still writing. */
export interface ToolDraft {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

/** Live is what the events told about the open session that the log does not show yet. */
export interface Live {
  /** streaming is the text of the answer being written. */
  streaming: string;
  /** settled is an answer already logged but not yet in view. */
  settled: { seq: number; text: string } | null;
  /** outgoing is the message just sent, until the log shows it. */
  outgoing: { text: string; afterSeq: number } | null;
  drafts: ToolDraft[];
  /** progress holds tool.progress lines by call ID. */
  progress: Record<string, string[]>;
  retry: { delayMs: number; error: string; at: number } | null;
}

/** emptyLive is the state with nothing in flight. */
export const emptyLive = (): Live => ({
  streaming: '',
  settled: null,
  outgoing: null,
  drafts: [],
  progress: {},
  retry: null,
});

/** live is the open session's unlogged state. */
export const live = writable<Live>(emptyLive());

/** draftWorkspace is the folder a new chat will work in. */
export const draftWorkspace = writable<string>('');

/** draftMode is the permission mode a new chat will start in. */
export const draftMode = writable<PermissionMode>('default');

/** focusSeq asks the chat to scroll to (and flash) the message with this seq. */
export const focusSeq = writable<number | null>(null);

/** sending is true while a message is on its way. */
export const sending = writable(false);

/** running is true while the open session runs a turn. */
export const running = derived(view, (v) => Boolean(v?.running));

/** currentMode is the permission mode the header shows. */
export const currentMode = derived([view, draftMode, activeId], ([v, d, id]) =>
  id && v ? v.session.mode : d,
);

/** currentWorkspace is the folder the open session (or the new chat) works in. */
export const currentWorkspace = derived([view, draftWorkspace, activeId], ([v, d, id]) =>
  id && v ? v.session.workspace : d,
);

/**
 * PendingApproval is a question waiting in the open session's dock: its
 * own, or (with sessionId and from) one of its subagents'.
 */
export type PendingApproval = UIMessage & { sessionId?: string; from?: { agent: string; title: string } };

/** pendingApprovals are the open session's questions waiting for an answer, its own first, then its subagents'. */
export const pendingApprovals = derived([view, childApprovals, activeId, sessions], ([v, children, id, list]): PendingApproval[] => {
  if (!v || !id) {
    return [];
  }
  const waiting = new Set(v.pending ?? []);
  const own: PendingApproval[] = v.messages.filter(
    (m) => m.kind === 'approval' && m.approval && !m.approval.decision && waiting.has(m.approval.callId),
  );
  const theirs: PendingApproval[] = children
    .filter((c) => c.sessionId !== id && (c.rootId === id || isAncestor(id, c.sessionId, list)))
    .map((c) => ({ seq: c.seq, kind: 'approval', time: '', approval: c.approval, sessionId: c.sessionId, from: subagentLabel(c.sessionId, list) }));
  return [...own, ...theirs];
});

async function fetchView(): Promise<void> {
  const id = get(activeId);
  if (!id) {
    return;
  }
  let v: SessionView;
  try {
    v = await api.getSession(id);
  } catch (err) {
    if (get(activeId) !== id) {
      return;
    }
    viewLoading.set(false);
    if (err instanceof api.ApiError && err.code === 'not_found') {
      newChat();
      return;
    }
    toastError(err);
    return;
  }
  if (get(activeId) !== id) {
    return;
  }
  view.set(v);
  viewLoading.set(false);
  setRunning(id, v.running);
  live.update((l) => {
    const next = { ...l };
    if (next.settled && v.session.lastSeq >= next.settled.seq) {
      next.settled = null;
    }
    if (next.outgoing && v.messages.some((m) => m.kind === 'user' && m.seq > next.outgoing!.afterSeq)) {
      next.outgoing = null;
    }
    if (!v.running) {
      next.streaming = '';
      next.drafts = [];
      next.retry = null;
      next.progress = {};
      if (!get(sending)) {
        next.outgoing = null;
      }
    }
    return next;
  });
}

/** reloadView fetches the open session again, coalescing bursts of events. */
export const reloadView = coalesce(fetchView, 40);

/**
 * remember keeps the open session in the URL's fragment, so a reload (or the
 * window's restart of the page) comes back to it.
 */
function remember(id: string | null): void {
  if (typeof window === 'undefined' || typeof history === 'undefined') {
    return;
  }
  const url = new URL(window.location.href);
  url.hash = id ? `session=${id}` : '';
  history.replaceState(history.state, '', url);
}

/** rememberedSession returns the session the URL's fragment names, if any. */
export function rememberedSession(): string | null {
  if (typeof window === 'undefined') {
    return null;
  }
  return /session=([\w-]+)/.exec(window.location.hash)?.[1] ?? null;
}

/** openSession shows a session. */
export function openSession(id: string): void {
  remember(id);
  if (get(activeId) === id) {
    reloadView();
    return;
  }
  activeId.set(id);
  view.set(null);
  live.set(emptyLive());
  viewLoading.set(true);
  void fetchView();
  void loadChildApprovals(id, get(sessions));
  void loadSubagentRuns(id);
}

/** newChat leaves the open session so the next message starts a new one. */
export function newChat(): void {
  remember(null);
  activeId.set(null);
  view.set(null);
  viewLoading.set(false);
  live.set(emptyLive());
  draftAgent.set('default');
  const s = get(settings);
  if (s) {
    draftMode.set(s.mode || 'default');
    if (s.lastWorkspace && !get(draftWorkspace)) {
      draftWorkspace.set(s.lastWorkspace);
    }
  }
  composerFocus.update((n) => n + 1);
}

/** send sends a message, starting a session first for a new chat. */
export async function send(text: string): Promise<boolean> {
  if (!text.trim() || get(sending)) {
    return false;
  }
  sending.set(true);
  try {
    let id = get(activeId);
    if (!id) {
      const s = await api.createSession(get(draftWorkspace), get(draftMode), get(draftAgent));
      id = s.id;
      activeId.set(id);
      remember(id);
      view.set({ session: s, messages: [], running: false, pending: [], contextWindow: 0, contextUsed: 0 });
      sessions.update((list) => [s, ...list.filter((x) => x.id !== s.id)]);
      draftWorkspace.set(s.workspace);
    }
    const afterSeq = get(view)?.session.lastSeq ?? 0;
    live.set({ ...emptyLive(), outgoing: { text, afterSeq } });
    view.update((v) => (v ? { ...v, running: true } : v));
    await api.sendMessage(id, text);
    return true;
  } catch (err) {
    live.update((l) => ({ ...l, outgoing: null }));
    if (api.isBusy(err)) {
      toast(get(t)('composer.busy'), { kind: 'error' });
    } else {
      toastError(err);
    }
    reloadView();
    return false;
  } finally {
    sending.set(false);
  }
}

/** stop cancels the open session's turn. */
export async function stop(): Promise<void> {
  const id = get(activeId);
  if (!id) {
    return;
  }
  try {
    await api.cancel(id);
  } catch (err) {
    toastError(err);
  }
}

/**
 * answerApproval answers a waiting approval: the open session's, or with
 * sessionId one of its subagents'.
 */
export async function answerApproval(callId: string, decision: api.Decision, reason?: string, sessionId?: string): Promise<boolean> {
  const id = get(activeId);
  if (!id) {
    return false;
  }
  if (sessionId && sessionId !== id) {
    try {
      await api.approve(sessionId, callId, decision, reason);
    } catch (err) {
      toastError(err);
      return false;
    } finally {
      dropChildApproval(sessionId, callId);
    }
    return true;
  }
  try {
    await api.approve(id, callId, decision, reason);
  } catch (err) {
    toastError(err);
    reloadView();
    return false;
  }
  view.update((v) =>
    v
      ? {
          ...v,
          pending: (v.pending ?? []).filter((c) => c !== callId),
          messages: v.messages.map((m) =>
            m.kind === 'approval' && m.approval?.callId === callId && !m.approval.decision
              ? { ...m, approval: { ...m.approval, decision, reason } }
              : m,
          ),
        }
      : v,
  );
  reloadView();
  return true;
}

/**
 * pickAgent chooses the agent a new chat will run, and the mode it starts
 * in: the profile's own mode when it has one, the settings' otherwise.
 */
export function pickAgent(name: string): void {
  draftAgent.set(name);
  const profile = get(agents).find((a) => a.name === name);
  draftMode.set(profile?.permissionMode || get(settings)?.mode || 'default');
}

/** setMode changes the open session's mode, or the new chat's. */
export async function setMode(mode: PermissionMode): Promise<void> {
  const id = get(activeId);
  if (!id) {
    draftMode.set(mode);
    return;
  }
  try {
    const s = await api.setMode(id, mode);
    view.update((v) => (v && v.session.id === s.id ? { ...v, session: s } : v));
    sessions.update((list) => list.map((x) => (x.id === s.id ? s : x)));
  } catch (err) {
    toastError(err);
  }
}

/** resendEdited sends an edited user message in a fork and opens the fork. */
export async function resendEdited(seq: number, text: string): Promise<boolean> {
  const id = get(activeId);
  if (!id || !text.trim()) {
    return false;
  }
  try {
    const fork = await api.resendEdited(id, seq, text);
    await loadSessions();
    openSession(fork.id);
    toast(get(t)('toast.resent'));
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** onSessionEvent applies an event to the open session's state. */
export function onSessionEvent(ev: BackendEvent): void {
  if (!ev.sessionId || ev.sessionId !== get(activeId)) {
    return;
  }
  const data = (ev.data ?? {}) as Record<string, unknown>;
  switch (ev.type) {
    case 'message.delta':
      live.update((l) => ({ ...l, streaming: l.streaming + String(data.text ?? ''), retry: null }));
      return;
    case 'tool_call.delta':
      live.update((l) => {
        const drafts = [...l.drafts];
        const index = Number(data.index ?? 0);
        const i = drafts.findIndex((d) => d.index === index);
        if (i < 0 || (data.id && drafts[i].id && data.id !== drafts[i].id)) {
          drafts.push({ index, id: String(data.id ?? ''), name: String(data.name ?? ''), arguments: String(data.arguments ?? '') });
        } else {
          const d = drafts[i];
          drafts[i] = {
            ...d,
            name: d.name || String(data.name ?? ''),
            arguments: d.arguments + String(data.arguments ?? ''),
          };
        }
        return { ...l, drafts, retry: null };
      });
      return;
    case 'tool.progress': {
      const callId = String(data.callId ?? '');
      live.update((l) => ({
        ...l,
        progress: { ...l.progress, [callId]: [...(l.progress[callId] ?? []), String(data.message ?? '')].slice(-50) },
      }));
      return;
    }
    case 'llm.retry':
      live.update((l) => ({
        ...l,
        retry: { delayMs: Number(data.delayMs ?? 0), error: String(data.error ?? ''), at: Date.now() },
      }));
      return;
    case 'turn.error':
      // An error that ended the turn but could not be saved: no logged
      // error event will show it.
      toast(String(data.message ?? ''), { kind: 'error' });
      return;
    case 'turn.state':
      view.update((v) => (v ? { ...v, running: Boolean(data.running) } : v));
      if (!data.running) {
        live.update((l) => ({ ...l, streaming: '', drafts: [], retry: null }));
      }
      reloadView();
      return;
    case 'assistant.message':
      live.update((l) => ({
        ...l,
        settled: ev.seq ? { seq: ev.seq, text: String(data.text ?? l.streaming) } : null,
        streaming: '',
        drafts: [],
      }));
      reloadView();
      return;
  }
  if (ev.seq) {
    reloadView();
  }
}
