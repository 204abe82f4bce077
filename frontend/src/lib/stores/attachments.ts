// Files attached in the composer before sending (paperclip, drop, paste):
// each is uploaded at once (AddAttachment) and shows as a chip; sending
// takes the ready ones. Thumbnails of sent images are fetched once and kept
// as object URLs.
import { derived, get, writable } from 'svelte/store';
import * as api from '../api';
import type { Attachment } from '../types';
import { errorMessage } from '../util';
import { activeId, currentWorkspace } from './chat';

/** PendingAttachment is a chip in the composer. */
export interface PendingAttachment {
  key: string;
  name: string;
  size: number;
  status: 'uploading' | 'ready' | 'failed';
  attachment?: Attachment;
  error?: string;
  /** preview is an object URL of an image, for its chip. */
  preview?: string;
}

/** pending are the composer's attachments, in the order they were added. */
export const pending = writable<PendingAttachment[]>([]);

/** uploading is true while any attachment is still on its way. */
export const uploading = derived(pending, (list) => list.some((p) => p.status === 'uploading'));

let counter = 0;

/** readAsBase64 returns a file's content as base64. */
export function readAsBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => {
      const url = String(r.result ?? '');
      resolve(url.slice(url.indexOf(',') + 1));
    };
    r.onerror = () => reject(r.error ?? new Error('the file could not be read'));
    r.readAsDataURL(file);
  });
}

/** attachFiles uploads files and adds their chips. */
export async function attachFiles(files: File[]): Promise<void> {
  await Promise.all(files.map((f) => attachOne(f)));
}

async function attachOne(file: File): Promise<void> {
  const key = `att-${++counter}`;
  pending.update((list) => [...list, { key, name: file.name || 'pasted', size: file.size, status: 'uploading' }]);
  const set = (patch: Partial<PendingAttachment>) =>
    pending.update((list) => list.map((p) => (p.key === key ? { ...p, ...patch } : p)));
  try {
    const data = await readAsBase64(file);
    // A data: URL, not a blob: one: the page's Content-Security-Policy lets
    // images come from the app itself and data: URLs only.
    if (file.type.startsWith('image/')) {
      set({ preview: `data:${file.type};base64,${data}` });
    }
    const id = get(activeId);
    const att = await api.addAttachment({
      sessionId: id ?? undefined,
      workspace: id ? undefined : get(currentWorkspace) || undefined,
      name: file.name || pastedName(file.type),
      mime: file.type || undefined,
      data,
    });
    set({ status: 'ready', attachment: att, name: att.name });
  } catch (err) {
    set({ status: 'failed', error: errorMessage(err) });
  }
}

/** pastedName names a pasted file that has none (a screenshot). */
function pastedName(mime: string): string {
  const ext = mime.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
  return `pasted.${ext}`;
}

/** removeAttachment drops a chip. */
export function removeAttachment(key: string): void {
  pending.update((list) => list.filter((p) => p.key !== key));
}

/** takeAttachments returns the ready attachments and clears the chips. */
export function takeAttachments(): Attachment[] {
  const list = get(pending);
  pending.set([]);
  return list.filter((p) => p.status === 'ready' && p.attachment).map((p) => p.attachment!);
}

/** restoreAttachments puts chips back (a send that failed). */
export function restoreAttachments(atts: Attachment[]): void {
  pending.update((list) => [
    ...atts.map((a) => ({ key: `att-${++counter}`, name: a.name, size: a.size, status: 'ready' as const, attachment: a })),
    ...list,
  ]);
}

const thumbs = new Map<string, Promise<string>>();

/**
 * attachmentURL returns a data: URL of a sent attachment's content (cached;
 * the page's Content-Security-Policy allows data: images, not blob: ones).
 */
export function attachmentURL(att: Attachment): Promise<string> {
  let p = thumbs.get(att.id);
  if (!p) {
    p = api.getAttachment(att.id, att.mime).then((d) => `data:${d.mime};base64,${d.data}`);
    p.catch(() => thumbs.delete(att.id));
    thumbs.set(att.id, p);
  }
  return p;
}

/** formatSize says a file's size as people read it. */
export function formatSize(n: number): string {
  if (n >= 1 << 20) {
    return `${(n / (1 << 20)).toFixed(1)} MB`;
  }
  if (n >= 1 << 10) {
    return `${Math.round(n / (1 << 10))} KB`;
  }
  return `${n} B`;
}
