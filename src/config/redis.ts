/**
 * Where the queue's Redis is and how to reach it: one server (`REDIS_URL`), or the master that Redis
 * Sentinel names (`REDIS_SENTINELS` + `REDIS_SENTINEL_MASTER`), its passwords (in the environment or
 * in a file, for container secrets) and the TLS files. src/queue/redis-options.ts turns this into
 * ioredis's options; nothing here connects.
 */
import { resolve } from 'node:path';
import * as z from 'zod';
import { readBoundedFile } from './bounded-file.js';
import { type ClientTls, clientTlsVars, printableClientTls, readClientTls } from './client-tls.js';
import { ConfigError } from './errors.js';
import { maskUrlPassword } from './url-password.js';

export interface SentinelNode {
  host: string;
  port: number;
}

export type RedisSettings =
  | {
      kind: 'url';
      /** REDIS_URL as given, password included: never print it (`printableRedis`). */
      url: string;
      /** REDIS_PASSWORD(_FILE), when the URL holds none. */
      password?: string | undefined;
      /** REDIS_TLS_*_FILE; only with a `rediss://` URL. */
      tls?: ClientTls | undefined;
    }
  | {
      kind: 'sentinel';
      sentinels: SentinelNode[];
      /** REDIS_SENTINEL_MASTER: the master group's name in the sentinels' configuration. */
      master: string;
      /** REDIS_SENTINEL_PASSWORD(_FILE): the sentinels' own `requirepass`. */
      sentinelPassword?: string | undefined;
      /** REDIS_PASSWORD(_FILE): the master's and replicas' password. */
      password?: string | undefined;
      /** REDIS_TLS_*_FILE: TLS to the sentinels and to the master when set. */
      tls?: ClientTls | undefined;
    };

/** Sentinel's own port, when REDIS_SENTINELS gives a host alone. */
export const DEFAULT_SENTINEL_PORT = 26379;

/** `host:port,host:port` (`[::1]:26379` for IPv6; the port defaults to 26379); undefined with a problem. */
export function parseSentinels(text: string): SentinelNode[] | string {
  const nodes: SentinelNode[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/.exec(item);
    const port = m?.[3] === undefined ? DEFAULT_SENTINEL_PORT : Number(m[3]);
    if (!m || port < 1 || port > 65_535) {
      return `"${item}" is not host:port (e.g. sentinel-1.example.com:26379, 10.0.0.5:26379, [::1]:26379; the port defaults to ${DEFAULT_SENTINEL_PORT})`;
    }
    nodes.push({ host: (m[1] ?? m[2]) as string, port });
  }
  return nodes;
}

/** The variables read here, spread into the loader's environment schema. */
export const redisEnvShape = {
  /** Redis Sentinel instead of REDIS_URL: the sentinels, `host:port,host:port`. */
  REDIS_SENTINELS: z
    .string()
    .transform((text, ctx) => {
      const nodes = parseSentinels(text);
      if (typeof nodes === 'string') {
        ctx.addIssue({ code: 'custom', message: nodes });
        return z.NEVER;
      }
      return nodes;
    })
    .optional(),
  /** The master group's name that the sentinels monitor (`sentinel monitor <name> …`). */
  REDIS_SENTINEL_MASTER: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,128}$/, 'a master name: letters, digits, ".", "-" and "_"')
    .optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  REDIS_SENTINEL_PASSWORD_FILE: z.string().min(1).optional(),
  REDIS_PASSWORD: z.string().min(1).optional(),
  REDIS_PASSWORD_FILE: z.string().min(1).optional(),
  REDIS_TLS_CA_FILE: z.string().min(1).optional(),
  REDIS_TLS_CERT_FILE: z.string().min(1).optional(),
  REDIS_TLS_KEY_FILE: z.string().min(1).optional(),
};

/** The variables of this module that hold secrets: masked in the loader's messages. */
export const REDIS_SECRET_VARIABLES = ['REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD'] as const;

type RedisEnv = { REDIS_URL: string } & z.output<z.ZodObject<typeof redisEnvShape>>;

/**
 * The settings of the validated environment. `explicit` is the environment as given: REDIS_URL has
 * a default, so only it says whether REDIS_URL was set beside REDIS_SENTINELS.
 */
export function resolveRedis(
  e: RedisEnv,
  explicit: Readonly<Record<string, string | undefined>>,
  cwd: string,
): RedisSettings {
  const password = readSecret(e.REDIS_PASSWORD, e.REDIS_PASSWORD_FILE, 'REDIS_PASSWORD', cwd);
  const sentinelPassword = readSecret(
    e.REDIS_SENTINEL_PASSWORD,
    e.REDIS_SENTINEL_PASSWORD_FILE,
    'REDIS_SENTINEL_PASSWORD',
    cwd,
  );
  const tls = readClientTls(
    { ca: e.REDIS_TLS_CA_FILE, cert: e.REDIS_TLS_CERT_FILE, key: e.REDIS_TLS_KEY_FILE },
    clientTlsVars('REDIS_TLS'),
    cwd,
  );
  if (e.REDIS_SENTINELS === undefined) {
    const without = [
      'REDIS_SENTINEL_MASTER',
      'REDIS_SENTINEL_PASSWORD',
      'REDIS_SENTINEL_PASSWORD_FILE',
    ].filter((name) => explicit[name] !== undefined);
    if (without.length > 0) {
      throw new ConfigError(
        `${without.join(', ')} ${without.length === 1 ? 'is' : 'are'} set but REDIS_SENTINELS is not: name the sentinels (host:port,host:port), or unset ${without.length === 1 ? 'it' : 'them'}`,
      );
    }
    const url = new URL(e.REDIS_URL);
    if (!/^\/?\d{0,2}$/.test(url.pathname)) {
      throw new ConfigError(
        `REDIS_URL = "${maskUrlPassword(e.REDIS_URL)}": its path is a database number (redis://host:6379/0), not "${url.pathname}"`,
      );
    }
    if (password !== undefined && url.password) {
      throw new ConfigError(
        `REDIS_URL = "${maskUrlPassword(e.REDIS_URL)}" holds a password and REDIS_PASSWORD${e.REDIS_PASSWORD_FILE ? '_FILE' : ''} gives one too: set one of them`,
      );
    }
    if (tls && url.protocol !== 'rediss:') {
      throw new ConfigError(
        `REDIS_TLS_* files are set but REDIS_URL = "${maskUrlPassword(e.REDIS_URL)}" asks for no TLS: use a rediss:// URL`,
      );
    }
    return { kind: 'url', url: e.REDIS_URL, password, tls };
  }
  if (explicit.REDIS_URL !== undefined) {
    throw new ConfigError(
      `Set REDIS_URL (one Redis) or REDIS_SENTINELS (Redis Sentinel), not both: REDIS_URL = "${maskUrlPassword(explicit.REDIS_URL) ?? '(not a URL)'}"`,
    );
  }
  if (e.REDIS_SENTINEL_MASTER === undefined) {
    throw new ConfigError(
      'REDIS_SENTINELS is set but REDIS_SENTINEL_MASTER is not: name the master group the sentinels monitor (`sentinel monitor <name> …` in sentinel.conf, often mymaster)',
    );
  }
  return {
    kind: 'sentinel',
    sentinels: e.REDIS_SENTINELS,
    master: e.REDIS_SENTINEL_MASTER,
    sentinelPassword,
    password,
    tls,
  };
}

/** A password from NAME or the file named by NAME_FILE (trimmed), never both. */
function readSecret(
  value: string | undefined,
  file: string | undefined,
  name: string,
  cwd: string,
): string | undefined {
  if (value !== undefined && file !== undefined) {
    throw new ConfigError(`Set ${name} or ${name}_FILE, not both`);
  }
  if (file === undefined) return value;
  const text = readBoundedFile(resolve(cwd, file), `${name}_FILE`, {
    maxBytes: 64 * 1024,
    kind: 'a password file',
  }).trim();
  if (!text) throw new ConfigError(`${name}_FILE = "${file}": the password file is empty`);
  return text;
}

/** Where the service looks for Redis, as logs and `config check` print it: passwords masked. */
export function printableRedis(settings: RedisSettings): string {
  if (settings.kind === 'url') return maskUrlPassword(settings.url) ?? '(unparseable REDIS_URL)';
  const nodes = settings.sentinels.map((n) =>
    n.host.includes(':') ? `[${n.host}]:${n.port}` : `${n.host}:${n.port}`,
  );
  return `master "${settings.master}" of sentinels ${nodes.join(',')}`;
}

/** The variable to name in a message about reaching Redis. */
export function redisSetting(settings: RedisSettings): 'REDIS_URL' | 'REDIS_SENTINELS' {
  return settings.kind === 'url' ? 'REDIS_URL' : 'REDIS_SENTINELS';
}

/** The settings as `config check --print` prints them: passwords masked, TLS files by path. */
export function describeRedis(settings: RedisSettings): Record<string, unknown> {
  const masked = (p: string | undefined) => (p === undefined ? undefined : '***');
  const tls = printableClientTls(settings.tls);
  return settings.kind === 'url'
    ? {
        kind: 'url',
        url: maskUrlPassword(settings.url),
        ...(settings.password !== undefined && { password: masked(settings.password) }),
        ...(tls && { tls }),
      }
    : {
        kind: 'sentinel',
        sentinels: settings.sentinels,
        master: settings.master,
        ...(settings.sentinelPassword !== undefined && {
          sentinelPassword: masked(settings.sentinelPassword),
        }),
        ...(settings.password !== undefined && { password: masked(settings.password) }),
        ...(tls && { tls }),
      };
}
