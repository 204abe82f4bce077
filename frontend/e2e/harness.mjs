// Process helpers shared by the browser e2e (run.mjs) and the UI benchmarks
// (bench.mjs): a child process in its own process group whose output goes to
// a log file, go build, and an environment without provider settings.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** root is the repository's folder. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Proc is a child process in its own process group; its stdout and stderr
 * go to logDir/name.log, and stdout is kept for waitFor. pollMs is how
 * often waitFor looks.
 */
export class Proc {
  constructor(name, cmd, args, env, { logDir, pollMs = 50 }) {
    this.name = name;
    this.logFile = path.join(logDir, `${name}.log`);
    this.pollMs = pollMs;
    this.log = fs.createWriteStream(this.logFile);
    this.child = spawn(cmd, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.stdout = '';
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.child.stdout.on('data', (b) => {
      this.stdout += b.toString();
      this.log.write(b);
    });
    this.child.stderr.on('data', (b) => this.log.write(b));
  }

  /**
   * waitFor resolves to the first match of re in stdout. re must match up to
   * a line end, so that a line that has arrived in pieces is never matched
   * half-way (a URL with half of its token).
   */
  async waitFor(re, ms = 60_000) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const m = re.exec(this.stdout);
      if (m) {
        return m;
      }
      if (this.child.exitCode !== null) {
        throw new Error(`${this.name} exited (${this.child.exitCode}) before printing ${re}; see ${path.relative(root, this.logFile)}`);
      }
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
    throw new Error(`${this.name} did not print ${re} within ${ms} ms`);
  }

  /** stop ends the process group: SIGTERM, then SIGKILL after grace. */
  async stop(grace = 5000) {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-this.child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-this.child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }, grace);
      await this.exited;
      clearTimeout(timer);
    }
    await new Promise((resolve) => this.log.end(resolve));
  }
}

/** goBuild builds pkg into out, with tags when given. */
export function goBuild(out, pkg, tags) {
  const args = ['build', ...(tags ? ['-tags', tags] : []), '-o', out, pkg];
  execFileSync('go', args, { cwd: root, stdio: 'inherit', timeout: 15 * 60_000 });
}

/** cleanEnv drops the variables that would configure a provider behind the UI's back. */
export function cleanEnv(extra) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^(OPENAI_|ANTHROPIC_|TINYELF_|OPENROUTER_|DEEPSEEK_|XAI_|GEMINI_)/.test(k)) {
      delete env[k];
    }
  }
  return { ...env, ...extra };
}
