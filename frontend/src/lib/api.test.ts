import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, call, isBusy, subscribe, transport, unknownVersion, version } from './api';

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

describe('api.call', () => {
  it('posts JSON to /api/call/NAME with the URL token and unwraps the result', async () => {
    window.history.replaceState(null, '', '/?token=abc');
    const fetchMock = vi.fn(async (_url: string, _init?: RequestInit) => new Response(JSON.stringify({ result: { ok: 1 } })));
    vi.stubGlobal('fetch', fetchMock);
    expect(await call('GetSession', { id: 's1' })).toEqual({ ok: 1 });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('/api/call/GetSession');
    expect(init?.method).toBe('POST');
    expect(init?.body).toBe('{"id":"s1"}');
    expect((init?.headers as Record<string, string>).Authorization).toBe('Bearer abc');
    window.history.replaceState(null, '', '/');
  });

  it('turns an error body into an ApiError with its code', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ error: { code: 'busy', message: 'still working' } }), { status: 409 })),
    );
    const err = await call('SendMessage').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('busy');
    expect((err as ApiError).message).toBe('still working');
    expect(isBusy(err)).toBe(true);
  });

  it('calls the bound App in the window and parses its JSON error', async () => {
    const Call = vi.fn(async (method: string, args: string) => {
      if (method === 'Fail') {
        throw new Error('{"code":"not_found","message":"no such session"}');
      }
      return JSON.stringify({ method, args: JSON.parse(args) });
    });
    window.go = { main: { App: { Version: async () => '1', Call } } };
    expect(await call('State', { a: 1 })).toEqual({ method: 'State', args: { a: 1 } });
    const err = (await call('Fail').catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe('not_found');
    expect(err.message).toBe('no such session');
  });
});

describe('api.subscribe', () => {
  it('delivers SSE events and asks for a reload after a reconnect', () => {
    const sources: FakeEventSource[] = [];
    class FakeEventSource {
      url: string;
      onopen: (() => void) | null = null;
      onerror: (() => void) | null = null;
      onmessage: ((m: { data: string }) => void) | null = null;
      closed = false;
      constructor(url: string) {
        this.url = url;
        sources.push(this);
      }
      close() {
        this.closed = true;
      }
    }
    vi.stubGlobal('EventSource', FakeEventSource);
    const events: unknown[] = [];
    const onReconnect = vi.fn();
    const stop = subscribe({ onEvent: (e) => events.push(e), onReconnect });
    const src = sources[0];
    expect(src.url).toBe('/api/events');
    src.onopen?.();
    src.onmessage?.({ data: '{"sessionId":"s1","type":"message.delta","time":"","data":{"text":"hi"}}' });
    expect(events).toEqual([{ sessionId: 's1', type: 'message.delta', time: '', data: { text: 'hi' } }]);
    expect(onReconnect).not.toHaveBeenCalled();
    src.onerror?.();
    src.onopen?.();
    expect(onReconnect).toHaveBeenCalledOnce();
    stop();
    expect(src.closed).toBe(true);
  });

  it('listens to the Wails runtime events in the window', () => {
    let handler: ((d: unknown) => void) | undefined;
    const off = vi.fn();
    window.go = { main: { App: { Version: async () => '1' } } };
    window.runtime = {
      EventsOn: (name: string, cb: (d: unknown) => void) => {
        expect(name).toBe('tinyelf:event');
        handler = cb;
        return off;
      },
    };
    const events: unknown[] = [];
    const stop = subscribe({ onEvent: (e) => events.push(e) });
    handler?.({ sessionId: 's', type: 'turn.state', time: '', data: { running: true } });
    expect(events).toHaveLength(1);
    stop();
    expect(off).toHaveBeenCalled();
    delete window.runtime;
  });
});
