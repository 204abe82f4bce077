import { afterEach, describe, expect, it, vi } from 'vitest';
import { transport, unknownVersion, version } from './api';

afterEach(() => {
  delete window.go;
  vi.unstubAllGlobals();
});

describe('api.version', () => {
  it('asks the bound Go App inside the desktop window', async () => {
    window.go = { main: { App: { Version: () => Promise.resolve('1.2.3') } } };
    expect(transport()).toBe('wails');
    expect(await version()).toBe('1.2.3');
  });

  it('asks the HTTP server in a browser', async () => {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ version: '4.5.6' })));
    vi.stubGlobal('fetch', fetchMock);
    expect(transport()).toBe('http');
    expect(await version()).toBe('4.5.6');
    expect(fetchMock).toHaveBeenCalledWith('/api/version', expect.anything());
  });

  it('falls back when the backend cannot be reached', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('network down'))));
    expect(await version()).toBe(unknownVersion);
  });
});
