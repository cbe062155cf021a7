/**
 * The git command line as the server runs it: with no user or system configuration, no prompt and
 * no home, so a person's git settings (hooks paths, aliases, credential helpers) never reach what
 * the server asks of its own repositories or of a primary.
 */
import { execFile } from 'node:child_process';

/** The environment every git process of the server gets. */
export function gitEnvironment(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: '/nonexistent', GIT_TERMINAL_PROMPT: '0' };
}

/** Runs git on `gitdir`: its exit code (1: a "no" answer; 128 and up: git refused) and what it printed, trimmed; rejects when there is no git to run. */
export function runGit(gitdir: string, args: readonly string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    execFile('git', ['--git-dir', gitdir, ...args], { env: gitEnvironment(), maxBuffer: 1 << 16 }, (error, stdout) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? Number(error.code) : 0, out: stdout.trim() });
    });
  });
}
