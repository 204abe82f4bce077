// The open session. Its state comes from GetSession and is fetched again
// (coalesced) whenever a logged event for it arrives; what is not logged yet
// (the streaming answer, tool calls being written, progress lines, retry
// notices, the message just sent) lives in `live` until the next fetch shows
// the logged version.
import { derived, get, writable } from 'svelte/store';
import * as api from '../api';
import type { Attachment, BackendEvent, ModelRef, PermissionMode, SessionView, UIMessage } from '../types';
import { coalesce } from '../util';
import { agents, draftAgent } from './agents';
import { mcpServers } from './mcp';
import { loadSessions, reloadSessionsSoon, sessions, setRunning } from './sessions';
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
  outgoing: { text: string; afterSeq: number; attachments?: Attachment[] } | null;
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

/** draftModel is the model chosen for a new chat (null: the agent's default). */
export const draftModel = writable<ModelRef | null>(null);

/** defaultWorkspace is the folder a chat works in when none was chosen. */
export const defaultWorkspace = writable<string>('');

/** stoppedId is the session the user last stopped, until it runs again (Continue is offered). */
export const stoppedId = writable<string | null>(null);

/** focusSeq asks the chat to scroll to (and flash) the message with this seq. */
export const focusSeq = writable<number | null>(null);

/**
 * StartingNote names the MCP servers that were still starting when a
 * message was sent: the chat says so under that message, since their tools
 * are not there for the agent yet.
 */
export interface StartingNote {
  sessionId: string;
  /** afterSeq is the session's last seq before the message. */
  afterSeq: number;
  servers: string[];
}

/** startingNote is the open session's note about servers still starting, if any. */
export const startingNote = writable<StartingNote | null>(null);

/** startingServers are the enabled MCP servers not connected yet (starting or restarting). */
function startingServers(): string[] {
  return get(mcpServers)
    .filter((s) => !s.config.disabled && (s.state.status === 'starting' || s.state.status === 'restarting' || s.state.status === ''))
    .map((s) => s.config.name);
}

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
  startingNote.set(null);
  viewLoading.set(true);
  void fetchView();
  void loadChildApprovals(id, get(sessions));
  void loadSubagentRuns(id);
}

/**
 * openVersion shows another version of the open conversation (a branch of
 * an edited message) in place: the chat swaps to it once it is loaded, with
 * no loading screen in between, and scrolls to the message at seq.
 */
export async function openVersion(id: string, seq?: number): Promise<boolean> {
  if (id === get(activeId)) {
    if (seq !== undefined) {
      focusSeq.set(seq);
    }
    return true;
  }
  let v: SessionView;
  try {
    v = await api.getSession(id);
  } catch (err) {
    toastError(err);
    return false;
  }
  remember(id);
  activeId.set(id);
  live.set(emptyLive());
  view.set(v);
  viewLoading.set(false);
  setRunning(id, v.running);
  if (seq !== undefined) {
    focusSeq.set(seq);
  }
  return true;
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
    if (!get(draftWorkspace)) {
      draftWorkspace.set(s.lastWorkspace || get(defaultWorkspace));
    }
  }
  composerFocus.update((n) => n + 1);
}

/** send sends a message (with its attachments), starting a session first for a new chat. */
export async function send(text: string, attachments: Attachment[] = []): Promise<boolean> {
  if ((!text.trim() && attachments.length === 0) || get(sending)) {
    return false;
  }
  sending.set(true);
  try {
    let id = get(activeId);
    if (!id) {
      if (text.trim().startsWith('/')) {
        // A command that is refused (unknown, a missing argument) must not
        // leave an empty session behind: check it before there is one.
        await api.expandCommand(text);
      }
      const s = await api.createSession(get(draftWorkspace), get(draftMode), get(draftModel), get(draftAgent));
      draftModel.set(null);
      id = s.id;
      activeId.set(id);
      remember(id);
      view.set({ session: s, messages: [], running: false, pending: [], contextWindow: 0, contextUsed: 0 });
      sessions.update((list) => [s, ...list.filter((x) => x.id !== s.id)]);
      draftWorkspace.set(s.workspace);
    }
    const afterSeq = get(view)?.session.lastSeq ?? 0;
    live.set({ ...emptyLive(), outgoing: { text, afterSeq, attachments } });
    const starting = startingServers();
    startingNote.set(starting.length > 0 ? { sessionId: id, afterSeq, servers: starting } : null);
    view.update((v) => (v ? { ...v, running: true } : v));
    stoppedId.set(null);
    await api.sendMessage(id, text, attachments);
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
    stoppedId.set(id);
  } catch (err) {
    toastError(err);
  }
}

/**
 * resume starts a turn without a new message: "retry" after an error,
 * "continue" after a stop.
 */
export async function resume(how: 'retry' | 'continue'): Promise<boolean> {
  const id = get(activeId);
  if (!id || get(running)) {
    return false;
  }
  try {
    stoppedId.set(null);
    live.set(emptyLive());
    view.update((v) => (v ? { ...v, running: true } : v));
    await (how === 'retry' ? api.retryTurn(id) : api.continueTurn(id));
    return true;
  } catch (err) {
    view.update((v) => (v ? { ...v, running: false } : v));
    toastError(err);
    reloadView();
    return false;
  }
}

/** regenerate asks for another answer to the last message, in a branch, and opens it. */
export async function regenerate(): Promise<boolean> {
  const id = get(activeId);
  if (!id || get(running)) {
    return false;
  }
  try {
    const fork = await api.regenerate(id);
    await loadSessions();
    openSession(fork.id);
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/**
 * answerApproval answers a waiting approval: the open session's, or with
 * sessionId one of its subagents'.
 */
export async function answerApproval(callId: string, decision: api.Decision, reason?: string, sessionId?: string, content?: Record<string, unknown>): Promise<boolean> {
  const id = get(activeId);
  if (!id) {
    return false;
  }
  if (sessionId && sessionId !== id) {
    try {
      await (content ? api.approve(sessionId, callId, decision, reason, content) : api.approve(sessionId, callId, decision, reason));
    } catch (err) {
      toastError(err);
      return false;
    } finally {
      dropChildApproval(sessionId, callId);
    }
    return true;
  }
  try {
    await (content ? api.approve(id, callId, decision, reason, content) : api.approve(id, callId, decision, reason));
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

/**
 * resendEdited sends an edited user message as a new version of the
 * conversation (a branch the backend makes) and shows that version in
 * place; the edited message then switches between the versions.
 */
export async function resendEdited(seq: number, text: string): Promise<boolean> {
  const id = get(activeId);
  if (!id || !text.trim()) {
    return false;
  }
  try {
    const branch = await api.resendEdited(id, seq, text);
    const afterSeq = branch.lastSeq;
    if (!(await openVersion(branch.id))) {
      return false;
    }
    live.set({ ...emptyLive(), outgoing: { text, afterSeq } });
    view.update((v) => (v ? { ...v, running: true } : v));
    reloadView();
    reloadSessionsSoon();
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
