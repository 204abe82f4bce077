// Skills and slash commands: the skills of the current workspace (Settings
// → Skills), SkillHub search and install, and the commands of the
// composer's "/" menu (user-invocable skills, Markdown command files, MCP
// prompts). skills.changed events reload what is shown.
import { get, writable } from 'svelte/store';
import * as api from '../api';
import type { CommandInfo, HubSearchResult, InstalledSkill, SkillDetail, SkillList } from '../types';
import { coalesce } from '../util';
import { activeId, currentWorkspace } from './chat';
import { t, toast, toastError } from './ui';

/** skillList is the last listing of the current workspace's skills. */
export const skillList = writable<SkillList | null>(null);

/** commands are the slash commands of the open session (or new chat). */
export const commands = writable<CommandInfo[]>([]);

/** scope names the workspace skills calls concern: the open session's, or the new chat's folder. */
export function skillScope(): api.SkillScope {
  const id = get(activeId);
  if (id) {
    return { sessionId: id };
  }
  const ws = get(currentWorkspace);
  return ws ? { workspace: ws } : {};
}

/** loadSkills lists the current workspace's skills; an error is shown as a toast. */
export async function loadSkills(): Promise<void> {
  try {
    skillList.set(await api.listSkills(skillScope()));
  } catch (err) {
    toastError(err);
  }
}

/** loadCommands fetches the "/" menu; failures leave the old list (completion is a convenience). */
export async function loadCommands(): Promise<void> {
  try {
    commands.set((await api.listCommands(skillScope())).commands);
  } catch {
    // the composer works without completion
  }
}

/** setTrust records the user's answer about a project skill in the current workspace. */
export async function setTrust(name: string, trust: 'trusted' | 'denied' | 'untrusted'): Promise<boolean> {
  try {
    skillList.set(await api.setSkillTrust(skillScope(), name, trust));
    void loadCommands();
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** getSkill reads a skill's SKILL.md and files; null (with a toast) on error. */
export async function getSkill(name: string, location?: string): Promise<SkillDetail | null> {
  try {
    return await api.getSkill(skillScope(), name, location);
  } catch (err) {
    toastError(err);
    return null;
  }
}

/** openFolder opens a skill's folder in the file manager. */
export async function openFolder(name: string, location?: string): Promise<void> {
  try {
    await api.openSkillFolder(skillScope(), name, location);
  } catch (err) {
    toastError(err);
  }
}

/** searchHub searches the SkillHub indexes; it throws, so the caller can show the problem in place. */
export const searchHub = (query: string): Promise<HubSearchResult> => api.searchSkillHub(query, 30);

/** install installs a SkillHub skill; null (with a toast) on error. */
export async function install(id: string): Promise<InstalledSkill | null> {
  try {
    const inst = await api.installSkill(id);
    toast(get(t)(inst.replaced ? 'skills.updated' : 'skills.installed', { name: inst.name }));
    await loadSkills();
    return inst;
  } catch (err) {
    toastError(err);
    return null;
  }
}

/** remove removes a skill SkillHub installed. */
export async function remove(name: string): Promise<boolean> {
  try {
    await api.removeSkill(name);
    toast(get(t)('skills.removed', { name }));
    await loadSkills();
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** saveIndexes replaces the SkillHub index URLs (restoreDefault: back to TinyElf's default ones); it throws so the form can show why. */
export async function saveIndexes(urls: string[], restoreDefault = false): Promise<string[]> {
  const res = await api.saveSkillSettings(urls, restoreDefault);
  skillList.update((l) => (l ? { ...l, hubIndexes: res.hubIndexes, defaultHubIndexes: res.defaultHubIndexes } : l));
  return res.hubIndexes;
}

/** onSkillsChanged reloads what is shown after a skills.changed event. */
export const onSkillsChanged = coalesce(async () => {
  if (get(skillList)) {
    await loadSkills();
  }
  await loadCommands();
}, 300);
