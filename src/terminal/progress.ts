import { Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import type { LevelWithSilent } from 'pino';
import { type ProgressSink, silentProgress } from '../kernel/index.js';
import { createLogger, type Logger } from '../runtime/logger.js';

/**
 * Progress bars for long command-line work (a first rewards backfill, an export download), drawn by
 * cli-progress. Only in a terminal: when stdout or stderr is not one (a pipe, a file, CI, a
 * container's log), or when the logs are JSON lines, there are no bars at all.
 *
 * Bars and log lines share stdout: while bars are on screen, log lines go through cli-progress's
 * `log()`, which prints them above the bars at its next redraw, so neither garbles the other.
 */
export interface TerminalProgress {
  progress: ProgressSink;
  /** A human-readable logger that prints above the bars; undefined when there are no bars. */
  log: Logger | undefined;
  /** Removes every bar and restores the cursor; call it when the work is over (or failed). */
  stop(): void;
}

export interface TerminalProgressOptions {
  level: LevelWithSilent;
  /** Would the logs be human-readable? JSON logs mean a machine reads them: no bars. @defaultValue stdout is a TTY */
  prettyLogs?: boolean;
  /** Colours in the log lines (NO_COLOR turns them off). @defaultValue true */
  color?: boolean;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

const MiB = 1024 * 1024;

/** Bytes as MiB; anything else as a plain count. */
function valueFormatter(unit: string | undefined): cliProgress.ValueFormatter {
  return (value, _options, type) => {
    if (unit !== 'bytes' || (type !== 'value' && type !== 'total')) return String(value);
    return `${(value / MiB).toFixed(1)} MiB`;
  };
}

export function createTerminalProgress(options: TerminalProgressOptions): TerminalProgress {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const enabled = Boolean(stdout.isTTY && stderr.isTTY) && (options.prettyLogs ?? true);
  if (!enabled) return { progress: silentProgress, log: undefined, stop: () => undefined };

  const multibar = new cliProgress.MultiBar(
    {
      stream: stdout,
      clearOnComplete: true,
      hideCursor: true,
      // The run command owns SIGINT (it aborts the job, then calls stop()).
      gracefulExit: false,
      barsize: 30,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  const logLines = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = chunk.toString();
      if (multibar.isActive) multibar.log(text.endsWith('\n') ? text : `${text}\n`);
      else stdout.write(text);
      done();
    },
  });

  const progress: ProgressSink = {
    update(task, done, total, unit) {
      let bar = bars.get(task);
      if (!bar) {
        const known = total !== undefined;
        bar = multibar.create(
          total ?? 0,
          done,
          { task, unit: unit ?? '' },
          {
            format: known
              ? '{task} [{bar}] {value}/{total} {unit} | {duration_formatted}'
              : '{task} {value} {unit} | {duration_formatted}',
            formatValue: valueFormatter(unit),
          },
        );
        bars.set(task, bar);
        return;
      }
      if (total !== undefined) bar.setTotal(total);
      bar.update(done);
    },
    end(task) {
      const bar = bars.get(task);
      if (!bar) return;
      bars.delete(task);
      multibar.remove(bar); // redraws, printing the log lines buffered meanwhile
      if (bars.size === 0) multibar.stop();
    },
  };

  return {
    progress,
    log: createLogger({
      level: options.level,
      pretty: true,
      color: options.color ?? true,
      destination: logLines,
    }),
    stop() {
      if (!multibar.isActive) return;
      multibar.update(); // flush buffered log lines before the bars go
      multibar.stop();
      bars.clear();
    },
  };
}
