import pino, { type LevelWithSilent, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export interface LoggerOptions {
  level: LevelWithSilent;
  /** Human-readable lines (a terminal); JSON lines otherwise. @defaultValue process.stdout.isTTY */
  pretty?: boolean;
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
    return pino(
      opts,
      pretty({
        colorize: true,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname,service',
        destination: options.destination ?? 1,
      }),
    );
  }
  return options.destination ? pino(opts, options.destination) : pino(opts);
}
