// Settings: providers, preferences and permission rules, as the backend keeps
// them. Applying a loaded SettingsView also sets the language and theme.
import { get, writable } from 'svelte/store';
import * as api from '../api';
import type { Language } from '../i18n';
import type { Detected, PreferencesArgs, Preset, Provider, Rule, SettingsView } from '../types';
import { language, systemLanguage, theme, toastError } from './ui';

/** settings is the last SettingsView the backend returned, null until loaded. */
export const settings = writable<SettingsView | null>(null);

/** presets are the known providers, loaded once. */
export const presets = writable<Preset[]>([]);

/** rules are the persisted permission rules. */
export const rules = writable<Rule[]>([]);

/** applySettings stores a SettingsView and applies its language and theme. */
export function applySettings(v: SettingsView): void {
  settings.set(v);
  rules.set(v.rules ?? []);
  const lang: Language = v.language === 'en' || v.language === 'ja' ? v.language : systemLanguage();
  if (get(language) !== lang) {
    language.set(lang);
  }
  theme.set(v.theme || 'system');
}

/** loadSettings fetches the settings. */
export async function loadSettings(): Promise<SettingsView> {
  const v = await api.getSettings();
  applySettings(v);
  return v;
}

/** loadPresets fetches the provider presets once. */
export async function loadPresets(): Promise<Preset[]> {
  if (get(presets).length === 0) {
    presets.set(await api.presets());
  }
  return get(presets);
}

/** updatePreferences saves preferences; errors become a toast. */
export async function updatePreferences(args: PreferencesArgs): Promise<boolean> {
  try {
    applySettings(await api.updatePreferences(args));
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** saveProvider saves a provider and returns the new settings (throws on error). */
export async function saveProvider(args: {
  provider: Provider;
  clearKey?: boolean;
  rename?: string;
  makeDefault?: boolean;
}): Promise<SettingsView> {
  const v = await api.saveProvider(args);
  applySettings(v);
  return v;
}

/** deleteProvider removes a provider. */
export async function deleteProvider(name: string): Promise<void> {
  try {
    applySettings(await api.deleteProvider(name));
  } catch (err) {
    toastError(err);
  }
}

/** testProvider checks a stored or unsaved provider; it never throws. */
export async function testProvider(args: { name?: string; provider?: Provider }) {
  try {
    return await api.testProvider(args);
  } catch (err) {
    return { ok: false, message: api.errorMessage(err), models: [] };
  }
}

/** detectLocal looks for Ollama and LM Studio on this machine; never throws. */
export async function detectLocal(): Promise<Detected[]> {
  try {
    return await api.detectLocal();
  } catch {
    return [];
  }
}

/** loadRules refreshes the rules list. */
export async function loadRules(): Promise<void> {
  try {
    rules.set(await api.listRules());
  } catch (err) {
    toastError(err);
  }
}

/** removeRule deletes a rule. */
export async function removeRule(id: string): Promise<boolean> {
  try {
    await api.removeRule(id);
    rules.update((list) => list.filter((r) => r.id !== id));
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** addRule persists a rule. */
export async function addRule(rule: { tool: string; pattern?: string; action: 'allow' | 'deny' }): Promise<boolean> {
  try {
    const r = await api.addRule(rule);
    rules.update((list) => [...list, r]);
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** defaultProvider returns the provider new chats use, if any. */
export function defaultProvider(v: SettingsView | null) {
  if (!v) {
    return undefined;
  }
  return v.providers.find((p) => p.name === v.defaultProvider) ?? v.providers[0];
}
