import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort } from './redis-server.js';
import { tempDir } from './tmp.js';

/** Whether a binary is on PATH. */
export function hasBinary(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

/**
 * Tests that need `name` run wherever it is installed, and always in CI (where .ci/run installs it,
 * so a missing binary fails there); they skip only on a machine without it and without CI set.
 */
export function skipWithout(name: string): boolean {
  return skipUnless(hasBinary(name), name);
}

/**
 * The same for any tool (a library such as libfaketime): false when it is `present`; without it,
 * true (skip) on a machine without CI set, and under CI an error naming `what`, so the test fails.
 */
export function skipUnless(present: boolean, what: string): boolean {
  if (present) return false;
  if (process.env.CI)
    throw new Error(`${what} is not installed, and CI is set: .ci/run should have installed it`);
  return true;
}

export function promtool(args: string[], input?: string): { code: number | null; output: string } {
  const r = spawnSync('promtool', args, { input, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

export { freePort };

export interface PrometheusHandle {
  url: string;
  /** An instant PromQL query through the HTTP API: the result vector. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  close(): Promise<void>;
}

/** A real Prometheus on a free port, scraping `targets` every second, with its data in a temp dir. */
export async function startPrometheus(
  targets: string[],
  options: {
    rules?: string[];
    /** Items of `scrape_configs` (YAML lines, indented by two) instead of one plain job for `targets`. */
    scrapeConfigs?: string[];
  } = {},
): Promise<PrometheusHandle> {
  const dir = tempDir('glacier-prometheus-');
  const port = await freePort();
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  evaluation_interval: 1s',
    ...(options.rules?.length
      ? ['rule_files:', ...options.rules.map((r) => `  - ${JSON.stringify(r)}`)]
      : []),
    'scrape_configs:',
    ...(options.scrapeConfigs ?? [
      '  - job_name: glacier-collector',
      '    static_configs:',
      `      - targets: ${JSON.stringify(targets)}`,
    ]),
  ].join('\n');
  const configPath = join(dir.dir, 'prometheus.yml');
  writeFileSync(configPath, `${config}\n`);
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${configPath}`,
      `--storage.tsdb.path=${join(dir.dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    dir.cleanup();
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const res = await request(`${url}/-/ready`);
      await res.body.text();
      if (res.statusCode === 200) break;
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`prometheus did not start: ${stderr.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async query(promql) {
      const res = await request(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.body.json()) as {
        status: string;
        error?: string;
        data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`query ${promql}: ${body.error}`);
      return body.data?.result ?? [];
    },
    close,
  };
}

/** Polls `check` every 200 ms until it returns a value (not undefined) or `ms` pass. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const result = await check();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}
