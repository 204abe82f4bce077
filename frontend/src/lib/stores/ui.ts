// UI state that belongs to no backend object: the language and theme in
// force, which dialogs are open, toasts, and focus requests.
import { derived, get, writable } from 'svelte/store';
import { openExternal } from '../api';
import { detectLanguage, translate, type Language, type MessageKey } from '../i18n';
import type { Theme, UIMessage } from '../types';

function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') {
    return [];
  }
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

/** systemLanguage is the language the browser or OS prefers. */
export const systemLanguage = (): Language => detectLanguage(browserLanguages());

/** language is the UI language in force. */
export const language = writable<Language>(systemLanguage());

/** t translates a key in the current language: `$t('composer.send')`. */
export const t = derived(
  language,
  (lang) =>
    (key: MessageKey, vars?: Record<string, string | number>): string =>
      translate(lang, key, vars),
);

/** theme is the colour scheme preference in force. */
export const theme = writable<Theme>('system');

/** SettingsSection names a section of the settings dialog. */
export type SettingsSection =
  | 'providers'
  | 'permissions'
  | 'mcp'
  | 'tools'
  | 'appearance'
  | 'notifications'
  | 'web'
  | 'skills'
  | 'hooks'
  | 'agents'
  | 'capabilities'
  | 'about';

/** settingsOpen controls the settings dialog. */
export const settingsOpen = writable<boolean>(false);

/** settingsSection is the section the settings dialog shows. */
export const settingsSection = writable<SettingsSection>('providers');

/** settingsFocus names the MCP server whose card the settings dialog brings into view. */
export const settingsFocus = writable<string | null>(null);

/** openSettings opens the settings dialog at a section. */
export function openSettings(section?: SettingsSection): void {
  if (section) {
    settingsSection.set(section);
  }
  settingsOpen.set(true);
}

/** openServerSettings opens Settings → MCP servers at one server's card. */
export function openServerSettings(name: string): void {
  settingsFocus.set(name);
  openSettings('mcp');
}

/** ImageView is an image shown large: its address and its description. */
export interface ImageView {
  src: string;
  alt: string;
}

/** imageView is the image shown large over the app, if any. */
export const imageView = writable<ImageView | null>(null);

/** openImage shows an image large. */
export function openImage(src: string, alt = ''): void {
  imageView.set({ src, alt });
}

/**
 * sidebarCollapsed hides the sidebar (Ctrl+B); the choice is remembered in
 * this browser or window.
 */
export const sidebarCollapsed = writable<boolean>(readFlag('tinyelf.sidebarCollapsed'));
sidebarCollapsed.subscribe((v) => writeFlag('tinyelf.sidebarCollapsed', v));

function readFlag(key: string): boolean {
  try {
    return typeof localStorage !== 'undefined' && localStorage.getItem(key) === '1';
  } catch {
    return false;
  }
}

function writeFlag(key: string, on: boolean): void {
  try {
    if (typeof localStorage !== 'undefined') {
      if (on) {
        localStorage.setItem(key, '1');
      } else {
        localStorage.removeItem(key);
      }
    }
  } catch {
    // storage refused (private mode): the choice lasts until a reload
  }
}

/** helpOpen controls the keyboard shortcuts overlay. */
export const helpOpen = writable<boolean>(false);

/** folderPickerOpen controls the browser's folder picker. */
export const folderPickerOpen = writable<boolean>(false);

/** capabilityChangeOpen is the chat item whose capability change the dialog shows, or null. */
export const capabilityChangeOpen = writable<UIMessage | null>(null);

/** contextDetailsOpen controls the context gauge's details dialog. */
export const contextDetailsOpen = writable<boolean>(false);

/**
 * dialogs is the stack of open modal dialogs, innermost last: Esc closes
 * the top one wherever the focus is (Modal registers itself).
 */
export const dialogs = writable<{ id: string; close: () => void }[]>([]);

/** anyDialogOpen is true while a modal dialog has the keyboard. */
export const anyDialogOpen = derived(
  [settingsOpen, helpOpen, folderPickerOpen, capabilityChangeOpen, contextDetailsOpen, imageView, dialogs],
  ([s, h, f, c, g, i, d]) => s || h || f || c !== null || g || i !== null || d.length > 0,
);

/** Toast is a short notice, optionally with one action (Undo). */
export interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'error';
  action?: { label: string; run: () => void };
}

/** toasts are the notices on screen, oldest first. */
export const toasts = writable<Toast[]>([]);

let nextToast = 1;

/** toast shows a notice for ms milliseconds (0 keeps it until dismissed). */
export function toast(text: string, opts: { kind?: Toast['kind']; action?: Toast['action']; ms?: number } = {}): number {
  const id = nextToast++;
  toasts.update((list) => [...list.slice(-3), { id, text, kind: opts.kind ?? 'info', action: opts.action }]);
  const ms = opts.ms ?? (opts.kind === 'error' ? 9000 : 6000);
  if (ms > 0) {
    setTimeout(() => dismissToast(id), ms);
  }
  return id;
}

/** toastError shows an error notice for a thrown value. */
export function toastError(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  toast(get(t)('toast.error', { message }), { kind: 'error' });
}

/** dismissToast removes a notice. */
export function dismissToast(id: number): void {
  toasts.update((list) => list.filter((x) => x.id !== id));
}

/** searchFocus counts requests to focus the search box (Ctrl+K). */
export const searchFocus = writable(0);

/** composerFocus counts requests to focus the message box. */
export const composerFocus = writable(0);

/** openLink opens a web or mail link outside the app (never inside the window). */
export function openLink(href: string): void {
  if (/^(https?:|mailto:)/i.test(href)) {
    openExternal(href);
  }
}
