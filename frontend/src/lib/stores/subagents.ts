// Subagents as the parent's window sees them: each spawn_agent card's live
// state (subagent.update events), and the approvals its subagents (at any
// depth) wait for, which the parent's approval dock asks.
import { writable } from 'svelte/store';
import * as api from '../api';
import type { ApprovalView, BackendEvent, Session, SubagentRun } from '../types';

/** SubagentLive is what subagent.update events tell of one run. */
export type SubagentLive = Pick<SubagentRun, 'runId' | 'sessionId' | 'agent' | 'background' | 'state' | 'iterations' | 'progress' | 'error' | 'capabilityDiffs'>;

/** subagentUpdates holds each run's latest update, by `parentId:callId`. */
export const subagentUpdates = writable<Record<string, SubagentLive>>({});

/** ChildApproval is a subagent's question shown in its root session's dock. */
export interface ChildApproval {
  sessionId: string;
  rootId: string;
  seq: number;
  approval: ApprovalView;
}

/** childApprovals are the subagents' waiting approvals, oldest first. */
export const childApprovals = writable<ChildApproval[]>([]);

/** runKey names a spawn_agent call of a session. */
export const runKey = (parentId: string, callId: string) => `${parentId}:${callId}`;

/** trackSubagentEvent follows subagent.update events and subagents' approvals. */
export function trackSubagentEvent(ev: BackendEvent): void {
  const data = (ev.data ?? {}) as Record<string, unknown>;
  if (ev.type === 'subagent.update') {
    const callId = String(data.callId ?? '');
    const run = data.run as SubagentLive | undefined;
    if (callId && run) {
      subagentUpdates.update((m) => ({ ...m, [runKey(ev.sessionId, callId)]: run }));
    }
    return;
  }
  if (!ev.rootId) {
    return;
  }
  switch (ev.type) {
    case 'approval.asked': {
      const a = data as unknown as ApprovalView;
      childApprovals.update((list) =>
        list.some((x) => x.sessionId === ev.sessionId && x.approval.callId === a.callId)
          ? list
          : [...list, { sessionId: ev.sessionId, rootId: ev.rootId!, seq: ev.seq ?? 0, approval: a }],
      );
      return;
    }
    case 'approval.answered':
      dropChildApproval(ev.sessionId, String(data.callId ?? ''));
      return;
    case 'turn.state':
      if (!data.running) {
        childApprovals.update((list) => list.filter((x) => x.sessionId !== ev.sessionId));
      }
      return;
  }
}

/** dropChildApproval forgets an answered approval. */
export function dropChildApproval(sessionId: string, callId: string): void {
  childApprovals.update((list) => list.filter((x) => !(x.sessionId === sessionId && x.approval.callId === callId)));
}

/** rootOf walks a session's parent links up to its top-level session. */
export function rootOf(id: string, list: Session[]): string {
  const byId = new Map(list.map((s) => [s.id, s]));
  let cur = byId.get(id);
  for (let i = 0; cur?.parentId && i < 16; i++) {
    const up = byId.get(cur.parentId);
    if (!up) {
      return cur.parentId;
    }
    cur = up;
  }
  return cur?.id ?? id;
}

/** isAncestor reports whether a session is above another in their tree of subagents. */
export function isAncestor(ancestor: string, id: string, list: Session[]): boolean {
  const byId = new Map(list.map((s) => [s.id, s]));
  let cur = byId.get(id);
  for (let i = 0; cur?.parentId && i < 16; i++) {
    if (cur.parentId === ancestor) {
      return true;
    }
    cur = byId.get(cur.parentId);
  }
  return false;
}

/**
 * loadChildApprovals fetches the approvals the subagents under a session
 * wait for (after a reload, when no event told of them).
 */
export async function loadChildApprovals(rootId: string, list: Session[]): Promise<void> {
  const waiting = list.filter((s) => s.parentId && (s.pending?.length ?? 0) > 0 && (rootOf(s.id, list) === rootId || isAncestor(rootId, s.id, list)));
  for (const s of waiting) {
    try {
      const v = await api.getSession(s.id);
      const pending = new Set(v.pending ?? []);
      for (const m of v.messages) {
        if (m.kind === 'approval' && m.approval && !m.approval.decision && pending.has(m.approval.callId)) {
          const a = m.approval;
          childApprovals.update((cur) =>
            cur.some((x) => x.sessionId === s.id && x.approval.callId === a.callId) ? cur : [...cur, { sessionId: s.id, rootId, seq: m.seq, approval: a }],
          );
        }
      }
    } catch {
      // the child went away; nothing waits
    }
  }
}

/** childrenOf lists a session's direct subagent sessions, oldest first. */
export function childrenOf(id: string, list: Session[]): Session[] {
  return list.filter((s) => s.parentId === id).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** subagentLabel names a subagent's session for a label: its agent and title. */
export function subagentLabel(id: string, list: Session[] = []): { agent: string; title: string } {
  const s = list.find((x) => x.id === id);
  return { agent: s?.agent || 'default', title: s?.title || id.slice(0, 8) };
}

/** loadSubagentRuns seeds the spawn_agent cards of a session from what the engine still knows of its runs. */
export async function loadSubagentRuns(parentId: string): Promise<void> {
  let runs: SubagentRun[];
  try {
    runs = await api.listSubagents(parentId);
  } catch {
    return; // the cards show what their results recorded
  }
  subagentUpdates.update((m) => {
    const next = { ...m };
    for (const r of runs) {
      if (r.callId) {
        next[runKey(parentId, r.callId)] = r;
      }
    }
    return next;
  });
}
