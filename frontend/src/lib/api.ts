// The one module that talks to the TinyElf backend. In the desktop window the
// Go App is bound by Wails at window.go.main.App; in a browser (`tinyelf serve`)
// the same calls go over HTTP. Components call these functions, never the
// transport directly.

/** WailsApp mirrors the exported methods of the Go App type in app.go. */
export interface WailsApp {
  Version(): Promise<string>;
}

declare global {
  interface Window {
    go?: { main?: { App?: WailsApp } };
  }
}

/** Transport names how this page reaches the backend. */
export type Transport = 'wails' | 'http';

/** transport reports whether the page runs inside the desktop window. */
export function transport(): Transport {
  return wailsApp() ? 'wails' : 'http';
}

function wailsApp(): WailsApp | undefined {
  return typeof window === 'undefined' ? undefined : window.go?.main?.App;
}

/** unknownVersion is what version() returns when the backend cannot say. */
export const unknownVersion = '';

/**
 * version returns the backend's version string, or unknownVersion when the
 * backend is unreachable; it never throws.
 */
export async function version(): Promise<string> {
  try {
    const app = wailsApp();
    if (app) {
      return await app.Version();
    }
    const res = await fetch('/api/version', { headers: authHeaders() });
    if (!res.ok) {
      return unknownVersion;
    }
    const body: unknown = await res.json();
    if (body && typeof body === 'object' && 'version' in body && typeof body.version === 'string') {
      return body.version;
    }
    return unknownVersion;
  } catch {
    return unknownVersion;
  }
}

/**
 * authHeaders carries the token that `tinyelf serve` prints in its URL
 * (?token=...) on every HTTP call.
 */
function authHeaders(): Record<string, string> {
  const token = new URLSearchParams(window.location.search).get('token');
  return token ? { Authorization: `Bearer ${token}` } : {};
}
