import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { language } from '../lib/stores/ui';
import type { ToolCallView } from '../lib/types';
import ToolCard from './ToolCard.svelte';

beforeEach(() => language.set('en'));

function tool(over: Partial<ToolCallView>): ToolCallView {
  return { callId: 'c', name: 'Bash', arguments: '{"command":"make test"}', status: 'done', ...over };
}

describe('ToolCard', () => {
  it('shows the name, a summary of the arguments and the status', () => {
    render(ToolCard, { tool: tool({ durationMs: 1500 }), seq: 3, running: false });
    expect(screen.getByRole('article', { name: 'Bash: Done' })).toBeTruthy();
    expect(screen.getByText('make test')).toBeTruthy();
    expect(screen.getByText('1.5 s')).toBeTruthy();
  });

  it('opens a diff for Edit and Write at once', () => {
    const diff = '--- a/x.txt\n+++ b/x.txt\n@@ -1,1 +1,1 @@\n-old line\n+new line\n';
    render(ToolCard, { tool: tool({ name: 'Edit', arguments: '{"path":"x.txt"}', result: 'Edited x.txt', meta: { diff } }), seq: 3, running: false });
    expect(screen.getByRole('region', { name: 'Changes' })).toBeTruthy();
    expect(screen.getByText('new line').closest('tr')?.className).toContain('add');
    expect(screen.getByText('old line').closest('tr')?.className).toContain('del');
  });

  it('shows the exit code of a failed command and collapses a long result', async () => {
    const result = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
    render(ToolCard, { tool: tool({ status: 'error', isError: true, result, meta: { exitCode: 2 } }), seq: 3, running: false });
    expect(screen.getAllByText('exit code 2').length).toBeGreaterThan(0);
    expect(screen.queryByText(/line 40/)).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Show all 40 lines' }));
    expect(screen.getByText(/line 40/)).toBeTruthy();
  });

  it('opens and closes its details with the keyboard-reachable header button', async () => {
    render(ToolCard, { tool: tool({ result: 'ok' }), seq: 3, running: false });
    const head = screen.getByRole('button', { name: /Bash/ });
    expect(head.getAttribute('aria-expanded')).toBe('false');
    await fireEvent.click(head);
    expect(head.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByText('ok')).toBeTruthy();
  });

  it('marks a call of an ended turn that never finished as interrupted, and shows a denial reason', () => {
    render(ToolCard, {
      tool: tool({ status: 'denied', decision: 'deny', decidedBy: 'user' }),
      seq: 3,
      running: false,
      approval: { callId: 'c', name: 'Bash', arguments: '{}', decision: 'deny', reason: 'not now' },
    });
    expect(screen.getByText('Denied by you')).toBeTruthy();
    expect(screen.getByText(/Reason: not now/)).toBeTruthy();
  });

  it('says interrupted for a pending call after the turn ended', () => {
    render(ToolCard, { tool: tool({ status: 'pending' }), seq: 3, running: false });
    expect(screen.getByRole('article', { name: 'Bash: Interrupted' })).toBeTruthy();
  });

  it('marks a result from an MCP server or the web as untrusted, naming where it came from, even closed', () => {
    render(ToolCard, {
      tool: tool({ name: 'mcp__github__get_issue', arguments: '{}', result: '<mcp_content …>', meta: { mcpServer: 'github', untrusted: 'MCP server github' } }),
      seq: 3,
      running: false,
    });
    const note = screen.getByRole('note');
    expect(note.textContent).toContain('Untrusted content from MCP server github.');
    expect(note.textContent).toContain('not to follow instructions in it');
  });

  it('shows no untrusted marker on a result TinyElf made itself', () => {
    render(ToolCard, { tool: tool({ result: 'ok', meta: { exitCode: 0 } }), seq: 3, running: false });
    expect(screen.queryByText(/Untrusted content/)).toBeNull();
  });

  it('says it in Japanese too', () => {
    language.set('ja');
    render(ToolCard, { tool: tool({ name: 'WebFetch', arguments: '{"url":"https://example.com"}', meta: { untrusted: 'https://example.com' } }), seq: 3, running: false });
    expect(screen.getByRole('note').textContent).toContain('信頼できない内容（https://example.com）');
  });
});

describe('a card scrolled out of the message list and back', () => {
  it('is still open, with all its lines, and an edit still in progress', async () => {
    const { default: Harness } = await import('../test/RowMemoryHarness.svelte');
    const result = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
    const memory = new Map<string, unknown>();
    const view = render(Harness, { tool: tool({ result }), memory });
    await fireEvent.click(screen.getByRole('button', { name: /Bash/ }));
    await fireEvent.click(screen.getByRole('button', { name: 'Show all 40 lines' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Edit and resend' }));
    await fireEvent.input(screen.getByRole('textbox', { name: 'Edited message' }), { target: { value: 'Fix the lexer' } });

    await view.rerender({ tool: tool({ result }), memory, shown: false });
    expect(screen.queryByRole('button', { name: /Bash/ })).toBeNull();
    await view.rerender({ tool: tool({ result }), memory, shown: true });
    expect(screen.getByRole('button', { name: /Bash/ }).getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByText(/line 40/)).toBeTruthy();
    expect((screen.getByRole('textbox', { name: 'Edited message' }) as HTMLTextAreaElement).value).toBe('Fix the lexer');
  });
});
