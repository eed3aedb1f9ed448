import { createRequire } from 'node:module';
import pino, { type LevelWithSilent, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { forTerminal } from '../escape/terminal.js';

export type { Logger };

export interface LoggerOptions {
  level: LevelWithSilent;
  /** Human-readable lines (a terminal); JSON lines otherwise. @defaultValue process.stdout.isTTY */
  pretty?: boolean;
  /** Colours in human-readable lines. @defaultValue true */
  color?: boolean;
  /** Written instead of stdout (tests). */
  destination?: NodeJS.WritableStream;
}

/** Structured JSON logs (pino); the API key is redacted wherever a field could carry it. */
export function createLogger(options: LoggerOptions): Logger {
  const opts = {
    level: options.level,
    base: { service: 'glacier-collector' },
    redact: {
      paths: ['apiKey', '*.apiKey', 'headers["x-glacier-api-key"]', '*.headers["x-glacier-api-key"]'],
      censor: '***',
    },
  };
  const usePretty = options.pretty ?? Boolean(process.stdout.isTTY);
  if (usePretty) {
    // Loaded for a terminal only: the service's JSON lines never need it (29 files on the start path).
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
    return pino(
      {
        ...opts,
        // Pretty lines go to a terminal: upstream text in a message or a field (an error quoting
        // what the API sent) has its escape sequences shown, not run. JSON lines escape them already.
        hooks: {
          logMethod(args: unknown[], method: (...a: unknown[]) => void) {
            method.apply(this, args.map(visibleDeep));
          },
        },
        formatters: {
          log: (object: Record<string, unknown>) => visibleDeep(object) as Record<string, unknown>,
        },
      },
      pretty({
        colorize: options.color ?? true,
        // One line per event: its fields follow the message on the same line.
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname,service',
        destination: options.destination ?? 1,
      }),
    );
  }
  return options.destination ? pino(opts, options.destination) : pino(opts);
}

/** Strings, and the strings inside plain objects and arrays, with their control characters made visible. */
function visibleDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return forTerminal(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => visibleDeep(v, depth + 1));
  if (value instanceof Error) {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(value) as object) as Error, value);
    copy.message = forTerminal(value.message);
    if (value.stack) copy.stack = forTerminal(value.stack).replaceAll('\\x0a', '\n');
    return copy;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visibleDeep(v, depth + 1)]));
}

/** The logger a command's configuration asks for: LOG_LEVEL, LOG_FORMAT (else by terminal), NO_COLOR. */
export function configuredLogger(config: {
  logLevel: LevelWithSilent;
  logFormat?: 'json' | 'pretty' | undefined;
  color?: boolean;
}): LoggerOptions {
  return {
    level: config.logLevel,
    ...(config.logFormat && { pretty: config.logFormat === 'pretty' }),
    ...(config.color !== undefined && { color: config.color }),
  };
}
