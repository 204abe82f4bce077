// Start-up, the first-run decision, the event stream and window focus.
import { get, writable } from 'svelte/store';
import * as api from '../api';
import type { AppState, BackendEvent, MCPChange } from '../types';
import { loadAgents } from './agents';
import { onSkillsChanged } from './skills';
import { activeId, defaultWorkspace, draftMode, draftWorkspace, onSessionEvent, openSession, rememberedSession, reloadView } from './chat';
import { applyMCPChange, loadMCP, loadPrompts } from './mcp';
import { loadSessions, reloadSessionsSoon, sessions, setRunning, trackApprovals } from './sessions';
import { loadChildApprovals, trackSubagentEvent } from './subagents';
import { onUserToolsEvent } from './usertools';
import { loadPresets, loadSettings } from './settings';

/** Phase is what the window shows: a spinner, first-run setup, the app, or a failure. */
export type Phase = 'loading' | 'setup' | 'ready' | 'failed';

/** phase is the current Phase. */
export const phase = writable<Phase>('loading');

/** appState is State() as of start-up. */
export const appState = writable<AppState | null>(null);

/** developmentVersion is the version of a build that was given none (backend/version.Development). */
export const developmentVersion = '0.0.0-dev';

/** appVersion is the backend's version, empty until known. */
export const appVersion = writable<string>(api.unknownVersion);

/** connected is false while the event stream is broken. */
export const connected = writable(true);

/** bootError explains a failed start. */
export const bootError = writable('');

/** boot loads what the first screen needs and picks setup or the app. */
export async function boot(): Promise<void> {
  phase.set('loading');
  try {
    const [st, s] = await Promise.all([api.getState(), loadSettings()]);
    appState.set(st);
    appVersion.set(st.version);
    defaultWorkspace.set(st.defaultWorkspace ?? '');
    draftWorkspace.set(s.lastWorkspace || st.defaultWorkspace || '');
    draftMode.set(s.mode || 'default');
    phase.set(st.hasProvider ? 'ready' : 'setup');
    api.windowReady();
    const remembered = rememberedSession();
    if (remembered && st.hasProvider) {
      openSession(remembered);
    }
  } catch (err) {
    bootError.set(api.errorMessage(err));
    phase.set('failed');
    return;
  }
  void loadPresets().catch(() => undefined);
  void loadSessions()
    .then(() => {
      // A subagent of the open session may wait for an approval no event told of.
      const id = get(activeId);
      if (id) {
        void loadChildApprovals(id, get(sessions));
      }
    })
    .catch(() => undefined);
  void loadMCP().catch(() => undefined);
  void loadAgents();
  void loadPrompts();
}

/**
 * dismissSettingsNotice hides the settings notice here at once, and tells
 * the backend so that no other window or tab (or reload) shows it again.
 */
export async function dismissSettingsNotice(): Promise<void> {
  appState.update((st) => (st ? { ...st, settingsNotice: undefined } : st));
  try {
    await api.dismissSettingsNotice();
  } catch {
    // dismissed here anyway; another tab may show it until it is dismissed there
  }
}

/** finishSetup leaves the first-run screen for the app. */
export async function finishSetup(): Promise<void> {
  try {
    appState.set(await api.getState());
  } catch {
    // the app shows what it has; the header says when no model is set
  }
  phase.set('ready');
}

/** loadVersion asks the backend for its version (also outside boot, for tests). */
export async function loadVersion(): Promise<void> {
  appVersion.set(await api.version());
}

// The logged event types that change what the sessions list shows.
const listEvents = new Set([
  'session.created',
  'session.renamed',
  'session.deleted',
  'session.restored',
  'mode.changed',
  'user.message',
  'assistant.message',
  'turn.end',
]);

/** dispatch routes one backend event to the stores it concerns. */
export function dispatch(ev: BackendEvent): void {
  switch (ev.type) {
    case 'bus.lagged':
      reloadAll();
      return;
    case 'mcp.state':
      applyMCPChange(ev.data as MCPChange);
      onSkillsChanged(); // its prompts are commands
      return;
    case 'skills.changed':
      onSkillsChanged();
      return;
    case 'usertools.report':
    case 'usertools.task':
      onUserToolsEvent();
      return;
    case 'turn.state':
      setRunning(ev.sessionId, Boolean((ev.data as { running?: boolean })?.running));
      break;
  }
  if (ev.type === 'approval.asked' || ev.type === 'approval.answered' || ev.type === 'turn.state') {
    trackApprovals(ev.sessionId, ev.type, (ev.data ?? {}) as { callId?: string; running?: boolean });
  }
  trackSubagentEvent(ev);
  if (listEvents.has(ev.type) || ev.type === 'subagent.update') {
    reloadSessionsSoon();
  }
  onSessionEvent(ev);
}

/** reloadAll refetches everything shown, after lost events or a reconnect. */
export function reloadAll(): void {
  reloadSessionsSoon();
  reloadView();
  void loadMCP().catch(() => undefined);
}

/** connectEvents starts the event stream; the returned function ends it. */
export function connectEvents(): () => void {
  return api.subscribe({
    onEvent: dispatch,
    onReconnect: reloadAll,
    onConnection: (up) => connected.set(up),
  });
}

/**
 * trackFocus tells the backend whether the window has the focus, so desktop
 * notifications appear only while the user is elsewhere.
 */
export function trackFocus(): () => void {
  const report = (focused: boolean) => void api.setFocused(focused).catch(() => undefined);
  const onFocus = () => report(true);
  const onBlur = () => report(false);
  const onVisibility = () => report(document.visibilityState === 'visible' && document.hasFocus());
  window.addEventListener('focus', onFocus);
  window.addEventListener('blur', onBlur);
  document.addEventListener('visibilitychange', onVisibility);
  if (get(phase) !== 'failed') {
    report(document.hasFocus());
  }
  return () => {
    window.removeEventListener('focus', onFocus);
    window.removeEventListener('blur', onBlur);
    document.removeEventListener('visibilitychange', onVisibility);
  };
}
