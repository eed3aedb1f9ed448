import { createServer, type Server, type Socket } from 'node:net';

/**
 * A lying Redis Sentinel: a small server speaking RESP over a real socket on loopback, answering
 * `SENTINEL get-master-addr-by-name` with whatever the test sets (a port of 99999, a host of 1 MiB, or
 * the address of a real master), `SENTINEL sentinels` with no peers, and PING/AUTH as a sentinel
 * would. Everything else is `-ERR unknown command`. Counts the address questions it was asked.
 */
export interface FakeSentinel {
  port: number;
  /** `host:port` for REDIS_SENTINELS. */
  address: string;
  /** What `get-master-addr-by-name` answers from now on. */
  answer(host: string, port: string): void;
  /** How many times it was asked for the master. */
  asked(): number;
  close(): Promise<void>;
}

export async function startFakeSentinel(host: string, port: string): Promise<FakeSentinel> {
  let reply = { host, port };
  let asked = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const parsed = parseCommand(buffer);
        if (!parsed) break;
        buffer = buffer.subarray(parsed.length);
        socket.write(answer(parsed.args));
      }
    });
  });
  const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
  const answer = (args: string[]): string => {
    const [command = '', sub = ''] = args.map((a) => a.toLowerCase());
    if (command === 'ping') return '+PONG\r\n';
    if (command === 'auth' || command === 'client') return '+OK\r\n';
    if (command === 'sentinel' && sub === 'get-master-addr-by-name') {
      asked++;
      return `*2\r\n${bulk(reply.host)}${bulk(reply.port)}`;
    }
    if (command === 'sentinel') return '*0\r\n';
    return `-ERR unknown command '${command}'\r\n`;
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: bound } = server.address() as { port: number };
  return {
    port: bound,
    address: `127.0.0.1:${bound}`,
    answer(h, p) {
      reply = { host: h, port: p };
    },
    asked: () => asked,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One RESP array of bulk strings at the start of `buf`, and its length in bytes; undefined if incomplete. */
function parseCommand(buf: Buffer): { args: string[]; length: number } | undefined {
  if (buf.length === 0 || buf[0] !== 0x2a /* * */) {
    // An inline command: a line of words.
    const end = buf.indexOf('\r\n');
    if (end < 0) return undefined;
    return { args: buf.subarray(0, end).toString().split(' '), length: end + 2 };
  }
  let at = buf.indexOf('\r\n');
  if (at < 0) return undefined;
  const count = Number(buf.subarray(1, at).toString());
  at += 2;
  const args: string[] = [];
  for (let i = 0; i < count; i++) {
    const end = buf.indexOf('\r\n', at);
    if (end < 0) return undefined;
    const len = Number(buf.subarray(at + 1, end).toString());
    const start = end + 2;
    if (buf.length < start + len + 2) return undefined;
    args.push(buf.subarray(start, start + len).toString());
    at = start + len + 2;
  }
  return { args, length: at };
}
