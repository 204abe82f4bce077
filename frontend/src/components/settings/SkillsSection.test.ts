import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SkillList } from '../../lib/types';

const defaultIndex = 'https://developers.cloudflare.com/.well-known/agent-skills/index.json';
const yamlReason =
  "/data/skills/not-yaml/SKILL.md:3: the frontmatter is not valid YAML: line 3: did not find expected ',' or ']' (description: starts with '[', which begins a YAML list or mapping; quote the value to write text)";

const list = (trust: 'untrusted' | 'trusted'): SkillList => ({
  workspace: '/w',
  roots: [
    { source: 'user', dir: '/data/skills' },
    { source: 'project', dir: '/w/.tinyelf/skills' },
    { source: 'builtin', dir: 'builtin:tinyelf' },
  ],
  userDir: '/data/skills',
  hubIndexes: ['https://hub.example/index.json', defaultIndex],
  defaultHubIndexes: [defaultIndex],
  skills: [
    { name: 'broken', source: 'project', status: 'invalid', dir: '/w/.tinyelf/skills/broken', location: '/w/.tinyelf/skills/broken/SKILL.md', reason: '/w/.tinyelf/skills/broken/SKILL.md:1: SKILL.md has no frontmatter' },
    { name: 'not-yaml', source: 'user', status: 'invalid', dir: '/data/skills/not-yaml', location: '/data/skills/not-yaml/SKILL.md', reason: yamlReason },
    { name: 'deploy', source: 'project', status: trust === 'trusted' ? 'ready' : 'untrusted', trust, dir: '/w/.tinyelf/skills/deploy', description: 'Deploy to staging.', allowedTools: 'Bash(git:*)' },
    { name: 'review', source: 'user', status: 'ready', trust: 'trusted', dir: '/data/skills/review', description: 'My review.', installed: { id: 'acme/review', name: 'review', version: '1.0', url: 'x', installedAt: '' } },
    { name: 'review', source: 'project', status: 'shadowed', dir: '/w/.claude/skills/review', location: '/w/.claude/skills/review/SKILL.md', reason: 'shadowed by the user skill of the same name at /data/skills/review/SKILL.md' },
    { name: 'test-fix', source: 'builtin', status: 'ready', trust: 'trusted', dir: '', location: 'builtin:test-fix/SKILL.md', description: 'Fix failing tests.' },
  ],
});

vi.mock('../../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/api')>();
  return {
    ...actual,
    listSkills: vi.fn(async () => list('untrusted')),
    setSkillTrust: vi.fn(async () => list('trusted')),
    listCommands: vi.fn(async () => ({ commands: [] })),
    getSkill: vi.fn(async () => ({ ...list('untrusted').skills[4], content: '---\nname: test-fix\n---\n# Fixing failing tests', files: [] })),
    searchSkillHub: vi.fn(async () => ({ entries: [{ id: 'db/sql', name: 'sql-tuning', description: 'Tune SQL', url: 'u', index: 'i' }], installed: {} })),
    installSkill: vi.fn(async () => ({ name: 'sql-tuning', dir: '/data/skills/sql-tuning', id: 'db/sql' })),
    removeSkill: vi.fn(async () => ({})),
    saveSkillSettings: vi.fn(async (hubIndexes: string[], restoreDefault?: boolean) => ({
      hubIndexes: restoreDefault ? [defaultIndex] : hubIndexes,
      defaultHubIndexes: [defaultIndex],
    })),
  };
});

import * as api from '../../lib/api';
import { activeId } from '../../lib/stores/chat';
import { skillList } from '../../lib/stores/skills';
import { language } from '../../lib/stores/ui';
import SkillsSection from './SkillsSection.svelte';

beforeEach(() => {
  language.set('en');
  activeId.set('s1');
  skillList.set(null);
});

afterEach(() => vi.clearAllMocks());

function row(name: string, source: string): HTMLElement {
  const el = document.querySelector<HTMLElement>(`li[data-skill="${name}"][data-source="${source}"]`);
  if (!el) throw new Error(`no row ${name}/${source}`);
  return el;
}

describe('Settings → Skills', { timeout: 20_000 }, () => {
  it('lists every skill with its source, state and reason', async () => {
    render(SkillsSection);
    await screen.findByText('Deploy to staging.');
    expect(api.listSkills).toHaveBeenCalledWith({ sessionId: 's1' });
    expect(row('broken', 'project').textContent).toContain('does not load');
    expect(row('broken', 'project').textContent).toContain('has no frontmatter');
    // Front matter that is not YAML: skipped, with the parser's message.
    expect(row('not-yaml', 'user').dataset.status).toBe('invalid');
    expect(row('not-yaml', 'user').textContent).toContain('does not load');
    expect(row('not-yaml', 'user').textContent).toContain(yamlReason);
    expect(row('review', 'project').textContent).toMatch(/shadowed.*shadowed by the user skill/s);
    expect(row('deploy', 'project').textContent).toContain('not trusted yet');
    expect(within(row('test-fix', 'builtin')).queryByRole('button', { name: /Open folder/ })).toBeNull();
    expect(within(row('review', 'user')).getByRole('button', { name: 'Remove' })).toBeTruthy();
  });

  it('trusts a project skill', async () => {
    render(SkillsSection);
    await screen.findByText('Deploy to staging.');
    const trust = within(row('deploy', 'project')).getByRole('button', { name: 'Trust' });
    trust.focus();
    await fireEvent.click(trust);
    expect(api.setSkillTrust).toHaveBeenCalledWith({ sessionId: 's1' }, 'deploy', 'trusted');
    await vi.waitFor(() => expect(row('deploy', 'project').dataset.status).toBe('ready'));
    // The Trust button is gone; the focus stayed in the row.
    await vi.waitFor(() => expect(row('deploy', 'project').contains(document.activeElement)).toBe(true));
  });

  it('shows SKILL.md', async () => {
    render(SkillsSection);
    await screen.findByText('Fix failing tests.');
    await fireEvent.click(within(row('test-fix', 'builtin')).getByRole('button', { name: 'View SKILL.md' }));
    expect(await screen.findByText(/# Fixing failing tests/)).toBeTruthy();
  });

  it('searches SkillHub and installs', async () => {
    render(SkillsSection);
    await screen.findByText('Deploy to staging.');
    await fireEvent.input(screen.getByRole('searchbox'), { target: { value: 'sql' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    await screen.findByText('Tune SQL');
    await fireEvent.click(screen.getByRole('button', { name: 'Install' }));
    expect(api.installSkill).toHaveBeenCalledWith('db/sql');
  });

  it("marks TinyElf's default index, removes it and restores it", async () => {
    render(SkillsSection);
    await screen.findByText('Deploy to staging.');
    const item = screen.getByText(defaultIndex).closest('li');
    expect(item?.textContent).toContain("TinyElf's default");
    expect(screen.queryByRole('button', { name: 'Restore the default index' })).toBeNull();

    await fireEvent.click(screen.getByRole('button', { name: 'Edit indexes' }));
    await fireEvent.input(screen.getByLabelText('Index URLs, one per line'), { target: { value: 'https://hub.example/index.json' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(api.saveSkillSettings).toHaveBeenCalledWith(['https://hub.example/index.json'], false);
    await vi.waitFor(() => expect(screen.queryByText(defaultIndex)).toBeNull());

    await fireEvent.click(await screen.findByRole('button', { name: 'Restore the default index' }));
    expect(api.saveSkillSettings).toHaveBeenLastCalledWith([], true);
    await screen.findByText(defaultIndex);
    expect(screen.queryByRole('button', { name: 'Restore the default index' })).toBeNull();
  });
});
