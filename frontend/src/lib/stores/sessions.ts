// The sessions list, full-text search and the list's actions (rename,
// delete with undo, fork, export, import).
import { get, writable } from 'svelte/store';
import * as api from '../api';
import type { SearchHit, Session } from '../types';
import { coalesce } from '../util';
import { t, toast, toastError } from './ui';

/** sessions is the session list, most recently updated first. */
export const sessions = writable<Session[]>([]);

/** runningIds are the sessions with a turn in progress (from turn.state events). */
export const runningIds = writable<Set<string>>(new Set());

/** loadSessions fetches the list, and with it which sessions are running
 * and which wait for an approval (so a reloaded page shows them too). */
export async function loadSessions(): Promise<void> {
  const list = await api.listSessions();
  sessions.set(list);
  for (const s of list) {
    if (s.running !== undefined) {
      setRunning(s.id, s.running);
    }
    if (s.pending !== undefined) {
      const pending = s.pending;
      awaiting.update((map) => {
        const known = map[s.id] ?? [];
        if (known.length === pending.length && known.every((c) => pending.includes(c))) {
          return map;
        }
        return { ...map, [s.id]: [...pending] };
      });
    }
  }
}

/** reloadSessionsSoon refreshes the list after a burst of events. */
export const reloadSessionsSoon = coalesce(loadSessions, 200);

/** setRunning records whether a session is running a turn. */
export function setRunning(id: string, running: boolean): void {
  runningIds.update((set) => {
    if (set.has(id) === running) {
      return set;
    }
    const next = new Set(set);
    if (running) {
      next.add(id);
    } else {
      next.delete(id);
    }
    return next;
  });
}

/** awaiting maps a session to the call IDs waiting for the user's approval. */
export const awaiting = writable<Record<string, string[]>>({});

/** trackApprovals follows approval.asked / approval.answered / turn.state events of every session. */
export function trackApprovals(id: string, type: string, data: { callId?: string; running?: boolean }): void {
  awaiting.update((map) => {
    const calls = map[id] ?? [];
    let next = calls;
    if (type === 'approval.asked' && data.callId && !calls.includes(data.callId)) {
      next = [...calls, data.callId];
    } else if (type === 'approval.answered') {
      next = calls.filter((c) => c !== data.callId);
    } else if (type === 'turn.state' && !data.running) {
      next = [];
    }
    return next === calls ? map : { ...map, [id]: next };
  });
}

/** folderFilter is the workspace folder the sessions list is limited to ("" for all). */
export const folderFilter = writable('');

/** searchQuery is the text in the sidebar's search box. */
export const searchQuery = writable('');

/** searchResults holds the hits for searchQuery (null: no search active). */
export const searchResults = writable<SearchHit[] | null>(null);

/** searching is true while a search request runs. */
export const searching = writable(false);

let searchSeq = 0;
let searchTimer: ReturnType<typeof setTimeout> | undefined;

/** setSearch changes the query and searches after a short pause in typing. */
export function setSearch(q: string): void {
  searchQuery.set(q);
  if (searchTimer) {
    clearTimeout(searchTimer);
  }
  if (!q.trim()) {
    searchSeq++;
    searchResults.set(null);
    searching.set(false);
    return;
  }
  searching.set(true);
  searchTimer = setTimeout(() => void runSearch(q), 200);
}

async function runSearch(q: string): Promise<void> {
  const mine = ++searchSeq;
  try {
    const hits = await api.search(q);
    if (mine === searchSeq) {
      searchResults.set(hits);
    }
  } catch (err) {
    if (mine === searchSeq) {
      searchResults.set([]);
      toastError(err);
    }
  } finally {
    if (mine === searchSeq) {
      searching.set(false);
    }
  }
}

/** renameSession sets a session's title. */
export async function renameSession(id: string, title: string): Promise<void> {
  try {
    const s = await api.renameSession(id, title);
    sessions.update((list) => list.map((x) => (x.id === id ? s : x)));
  } catch (err) {
    toastError(err);
  }
}

/**
 * deleteSession moves a session to the trash and offers Undo; afterDelete
 * runs when it is gone (the chat leaves it).
 */
export async function deleteSession(s: Session, afterDelete: () => void, title: string): Promise<void> {
  try {
    await api.deleteSession(s.id);
  } catch (err) {
    toastError(err);
    return;
  }
  sessions.update((list) => list.filter((x) => x.id !== s.id));
  afterDelete();
  const tr = get(t);
  toast(tr('toast.deleted', { title }), {
    ms: 10000,
    action: {
      label: tr('toast.undo'),
      run: () => void restoreSession(s.id, title),
    },
  });
}

/** restoreSession brings a deleted session back. */
export async function restoreSession(id: string, title: string): Promise<void> {
  try {
    await api.restoreSession(id);
    await loadSessions();
    toast(get(t)('toast.restored', { title }));
  } catch (err) {
    toastError(err);
  }
}

/** forkSession copies a session up to atSeq into a new one and returns it. */
export async function forkSession(id: string, atSeq: number): Promise<Session | null> {
  try {
    const s = await api.forkSession(id, atSeq);
    await loadSessions();
    toast(get(t)('toast.forked'));
    return s;
  } catch (err) {
    toastError(err);
    return null;
  }
}

/** exportSession saves a session as Markdown or JSON. */
export async function exportSession(id: string, format: 'markdown' | 'json'): Promise<void> {
  try {
    const file = await api.exportSession(id, format);
    const where = await api.saveFile(file);
    if (where) {
      toast(get(t)('toast.exported', { file: where }));
    }
  } catch (err) {
    toastError(err);
  }
}

/** importSession reads a JSON export back as a session and returns it. */
export async function importSession(content: string): Promise<Session | null> {
  try {
    const s = await api.importSession(content);
    await loadSessions();
    toast(get(t)('toast.imported', { title: s.title || s.id }));
    return s;
  } catch (err) {
    toastError(err);
    return null;
  }
}
