import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentProgress } from '../../src/kernel/index.js';
import { createTerminalProgress } from '../../src/terminal/progress.js';

/** A stream that says it is a terminal, 100 columns wide, and keeps what is written. */
function fakeTerminal(isTTY = true) {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  Object.assign(stream, { isTTY, columns: 100, rows: 30 });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

/** Waits until pino-pretty's piped output has reached the stream. */
async function until(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setImmediate(r));
}

const esc = '\u001b';
/** A colour (SGR) sequence: the only escape allowed inside a log line. */
const sgr = `${esc}\\[\\d+m`;

// cli-progress redraws on a timer: the tests move that timer on instead of waiting for it.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});
const redraw = () => vi.advanceTimersByTime(250);

describe('terminal progress', () => {
  it('draws bars in a terminal and prints log lines above them, whole', async () => {
    const out = fakeTerminal();
    const err = fakeTerminal();
    const terminal = createTerminalProgress({ level: 'info', stdout: out.stream, stderr: err.stream });
    terminal.progress.update('rewards batch 1/2', 3, 20, 'pages');
    redraw();
    terminal.log!.info({ batch: 1 }, 'a line logged while the bar is on screen');
    await until(() => out.text().includes('a line logged') || redraw() === undefined);
    terminal.progress.update('rewards batch 1/2', 7, 20, 'pages');
    redraw();
    terminal.progress.end('rewards batch 1/2'); // redraws: the buffered log line is printed
    terminal.stop();

    const screen = out.text();
    expect(screen).toContain('rewards batch 1/2 [');
    expect(screen).toContain('7/20 pages');
    // The log line starts on a cleared line (the bar's, redrawn below it) and is written in one
    // piece: nothing but its own colours inside it, its fields on the same line.
    expect(screen).toMatch(
      new RegExp(
        `${esc}\\[1G${esc}\\[2K\\[\\d\\d:\\d\\d:\\d\\d\\] (${sgr})?INFO(${sgr})?: (${sgr})?a line logged while the bar is on screen(${sgr})? (${sgr})?\\{"batch":1\\}(${sgr})?\n`,
      ),
    );
    expect(screen.indexOf('a line logged')).toBeLessThan(screen.lastIndexOf('7/20 pages'));
    expect(err.text()).toBe('');
  });

  it('shows bytes in MiB and counts without a total', async () => {
    const out = fakeTerminal();
    const terminal = createTerminalProgress({
      level: 'info',
      stdout: out.stream,
      stderr: fakeTerminal().stream,
    });
    terminal.progress.update('download', 3 * 1024 * 1024, 10 * 1024 * 1024, 'bytes');
    terminal.progress.update('status reads', 4, undefined, 'reads');
    redraw();
    terminal.progress.end('download');
    terminal.progress.end('status reads');
    terminal.stop();
    expect(out.text()).toContain('3.0 MiB/10.0 MiB bytes');
    expect(out.text()).toContain('status reads 4 reads');
  });

  it.each([
    ['stdout is not a terminal', { stdout: false, stderr: true, pretty: true }],
    ['stderr is not a terminal', { stdout: true, stderr: false, pretty: true }],
    ['logs are JSON lines', { stdout: true, stderr: true, pretty: false }],
  ])('stays silent when %s', (_why, tty) => {
    const out = fakeTerminal(tty.stdout);
    const terminal = createTerminalProgress({
      level: 'info',
      prettyLogs: tty.pretty,
      stdout: out.stream,
      stderr: fakeTerminal(tty.stderr).stream,
    });
    expect(terminal.progress).toBe(silentProgress);
    expect(terminal.log).toBeUndefined();
    terminal.progress.update('task', 1, 2);
    terminal.stop();
    expect(out.text()).toBe('');
  });
});
