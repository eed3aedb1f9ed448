import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/runtime/logger.js';

/** A logger writing JSON lines into memory, which a test can read back. */
export function captureLog(level: 'debug' | 'info' = 'debug'): { log: Logger; text: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { log: createLogger({ level, pretty: false, destination: sink }), text: () => text };
}
