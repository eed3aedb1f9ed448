// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell text, whose ${…} is the shell's
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/** `completion bash|zsh`: scripts generated from the command definitions, run in the real shells. */

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function script(shell: 'bash' | 'zsh'): Promise<string> {
  const r = await runCli(['completion', shell]);
  expect(r.code, r.stderr).toBe(0);
  const { dir, cleanup } = tempDir('glacier-completion-');
  cleanups.push(cleanup);
  const path = join(dir, `completion.${shell}`);
  writeFileSync(path, r.stdout);
  return path;
}

/** The words bash offers after `line` (the last word being completed). */
function bashComplete(path: string, line: string[]): string[] {
  const words = line.map((w) => `'${w}'`).join(' ');
  const r = spawnSync(
    'bash',
    [
      '-c',
      `source '${path}'; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _glacier_collector; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

const hasZsh = spawnSync('zsh', ['-fc', 'true']).status === 0;

describe('shell completion', () => {
  it('bash completes the commands of --help, subcommands, options, job names and option choices', async () => {
    const help = await runCli(['--help']);
    const commands = [...help.stdout.split('Commands:')[1]!.matchAll(/^ {2}([a-z-]+)/gm)]
      .map((m) => m[1]!)
      .filter((c) => c !== 'help');
    const path = await script('bash');
    const top = bashComplete(path, ['glacier-collector', '']);
    expect(top.filter((w) => !w.startsWith('-')).sort()).toEqual(commands.sort());
    expect(top).toEqual(expect.arrayContaining(['-c', '--config', '-V', '--version', '--help']));
    expect(bashComplete(path, ['glacier-collector', 'config', ''])).toEqual([
      'check',
      'init',
      '-h',
      '--help',
    ]);
    expect(bashComplete(path, ['glacier-collector', 'config', 'check', '--'])).toEqual(['--print', '--help']);
    expect(bashComplete(path, ['glacier-collector', '-c', 'x.yaml', 'run', 'us'])).toEqual(['usage-metrics']);
    expect(bashComplete(path, ['glacier-collector', 'plan', '--tier', ''])).toEqual([
      'none',
      'Free',
      'Base',
      'Growth',
      'Pro',
    ]);
    expect(bashComplete(path, ['glacier-collector', 'start', '--role', 'w'])).toEqual(['worker']);
    expect(bashComplete(path, ['glacier-collector', 'report', 'rewards', '--f'])).toEqual([
      '--from',
      '--format',
    ]);
    expect(bashComplete(path, ['glacier-collector', 'completion', ''])).toEqual([
      'bash',
      'zsh',
      '-h',
      '--help',
    ]);
  });

  it('zsh: a #compdef script that registers itself, with descriptions', async () => {
    const path = await script('zsh');
    const r = await runCli(['completion', 'zsh']);
    expect(r.stdout).toMatch(/^#compdef glacier-collector$/m);
    expect(r.stdout).toContain('compdef _glacier_collector glacier-collector');
    expect(r.stdout).toContain("'status:a summary from the database");
    if (!hasZsh) return; // the shell itself, where installed
    const stubs = [
      'compdef() { :; }',
      '_describe() { print -rl -- "${(@P)2}"; }',
      'compadd() { shift; print -rl -- "$@"; }',
      `source '${path}'`,
      't() { words=("$@"); CURRENT=${#words}; _glacier_collector; }',
    ].join('\n');
    const run = (line: string) => {
      const out = spawnSync('zsh', ['-fc', `${stubs}\nt ${line}`], { encoding: 'utf8' });
      expect(out.status, out.stderr).toBe(0);
      return out.stdout.split('\n').filter(Boolean);
    };
    expect(run("glacier-collector config ''")).toEqual([
      'check:validate the configuration and summarize it: jobs and schedules, store, Redis, budget, metrics address',
      'init:write a commented starter config file (default ./glacier-collector.yaml); never overwrites',
      '-h:display help for command',
      '--help:display help for command',
    ]);
    expect(run("glacier-collector run ''")).toContain('usage-metrics:job');
    expect(run("glacier-collector plan --tier ''")).toEqual(['none', 'Free', 'Base', 'Growth', 'Pro']);
  });
});
