// Small helpers with no UI and no backend.

/** errorMessage returns what a person should read about any thrown value. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  return String(err);
}

/**
 * coalesce returns a trigger that runs task after delay ms of quiet, never
 * runs two at once, and runs once more when triggered while running; so a
 * burst of events causes one reload, and the last event is never missed.
 */
export function coalesce(task: () => Promise<void>, delay = 50): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  const run = async () => {
    timer = undefined;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await task();
    } catch {
      // the task reports its own errors; the next trigger tries again
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  const schedule = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
    }
    timer = setTimeout(() => void run(), delay);
  };
  return schedule;
}

/** isEditable reports whether an element takes typed text. */
export function isEditable(el: Element | null): boolean {
  if (!el) {
    return false;
  }
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) {
    return true;
  }
  if (el instanceof HTMLInputElement) {
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(el.type);
  }
  return (el as HTMLElement).isContentEditable === true;
}

/** copyText puts text on the clipboard; it resolves to whether that worked. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/**
 * MASK_PREFIX starts a secret value the backend masked (an MCP server's
 * token shown as "••••••••abcd"); sent back unchanged, the backend keeps the
 * stored value.
 */
export const MASK_PREFIX = '\u2022\u2022\u2022\u2022\u2022\u2022\u2022\u2022';

/** hasMasked reports whether any value of the maps is still masked. */
export function hasMasked(...maps: (Record<string, string> | undefined)[]): boolean {
  return maps.some((m) => Object.values(m ?? {}).some((v) => v.includes(MASK_PREFIX)));
}
