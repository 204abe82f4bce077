// Settings → Hooks: the settings' hooks and the current folder's project
// hooks with their trust.
import { get, writable } from 'svelte/store';
import * as api from '../api';
import type { HookList, HooksConfig } from '../types';
import { skillScope } from './skills';
import { t, toast, toastError } from './ui';

/** hookList is the last listing of the hooks for the current folder. */
export const hookList = writable<HookList | null>(null);

/** loadHooks lists the hooks; an error is shown as a toast. */
export async function loadHooks(): Promise<void> {
  try {
    hookList.set(await api.listHooks(skillScope()));
  } catch (err) {
    toastError(err);
  }
}

/** saveHooks saves the settings' hooks section; false (with a toast saying why) when refused. */
export async function saveHooks(hooks: HooksConfig, message: 'hooks.saved' | 'hooks.removed' = 'hooks.saved'): Promise<boolean> {
  try {
    hookList.set(await api.saveHooks(skillScope(), hooks));
    toast(get(t)(message));
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** setHooksTrust records the user's answer about the folder's project hooks. */
export async function setHooksTrust(trust: 'trusted' | 'denied' | 'untrusted'): Promise<boolean> {
  try {
    hookList.set(await api.setHooksTrust(skillScope(), trust));
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}
