import pino, { type LevelWithSilent, type Logger } from 'pino';
import pretty from 'pino-pretty';

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
    return pino(
      opts,
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
