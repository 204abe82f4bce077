// Application state shared by components. Components read and update these
// stores; only lib/api.ts talks to the backend.
import { derived, writable } from 'svelte/store';
import * as api from './api';
import { detectLanguage, translate, type Language, type MessageKey } from './i18n';

/** PermissionMode is how much the agent may do without asking (see `tinyelf run --mode`). */
export type PermissionMode = 'plan' | 'default' | 'acceptEdits' | 'auto';

/** permissionModes lists the modes in order of increasing autonomy. */
export const permissionModes: readonly PermissionMode[] = ['plan', 'default', 'acceptEdits', 'auto'];

/** SessionSummary is one row of the sessions list. */
export interface SessionSummary {
  id: string;
  title: string;
  updatedAt: string;
}

function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') {
    return [];
  }
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

/** language is the UI language, from the browser's preferences. */
export const language = writable<Language>(detectLanguage(browserLanguages()));

/** t translates a key in the current language: `$t('composer.send')`. */
export const t = derived(
  language,
  (lang) =>
    (key: MessageKey, vars?: Record<string, string | number>): string =>
      translate(lang, key, vars),
);

/** appVersion is the backend's version, empty until known. */
export const appVersion = writable<string>(api.unknownVersion);

/** permissionMode is the mode new turns run in. */
export const permissionMode = writable<PermissionMode>('default');

/** sessions is the sessions list shown in the sidebar, newest first. */
export const sessions = writable<SessionSummary[]>([]);

/** activeSessionId is the open session, or null for a new chat. */
export const activeSessionId = writable<string | null>(null);

/** modelConnected is true once a model provider is configured. */
export const modelConnected = writable<boolean>(false);

/** settingsOpen controls the settings panel. */
export const settingsOpen = writable<boolean>(false);

/** loadVersion asks the backend for its version and stores it. */
export async function loadVersion(): Promise<void> {
  appVersion.set(await api.version());
}

/** newChat leaves the open session so the next message starts a new one. */
export function newChat(): void {
  activeSessionId.set(null);
}
