// Settings → Notifications: which events notify, sound, the focus rule,
// and a test notification.
import { writable } from 'svelte/store';
import * as api from '../api';
import type { NotificationSettings, NotifyTestResult } from '../types';
import { toastError } from './ui';

/** notificationSettings are the stored choices, null until loaded. */
export const notificationSettings = writable<NotificationSettings | null>(null);

/** loadNotificationSettings fetches the choices. */
export async function loadNotificationSettings(): Promise<void> {
  try {
    notificationSettings.set(await api.getNotificationSettings());
  } catch (err) {
    toastError(err);
  }
}

/** saveNotificationSettings stores changed choices; they apply at once. */
export async function saveNotificationSettings(next: NotificationSettings): Promise<boolean> {
  notificationSettings.set(next);
  try {
    notificationSettings.set(await api.saveNotificationSettings(next));
    return true;
  } catch (err) {
    toastError(err);
    void loadNotificationSettings();
    return false;
  }
}

/** testNotification shows a sample notification now. */
export async function testNotification(): Promise<NotifyTestResult> {
  try {
    return await api.testNotification();
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
