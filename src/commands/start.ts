/**
 * `start`: the service until SIGTERM, SIGINT or SIGQUIT, then a shutdown that ends within its
 * deadline; SIGHUP re-reads the metrics web config (signals.ts).
 */
import { type Config, readWebTls } from '../config/index.js';
import { type Invocation, PROGRAM } from '../config/invocation.js';
import type { JobList } from '../kernel/index.js';
import type { Role } from '../queue/jobs.js';
import { type Service, startService } from '../service/service.js';
import { watchParent } from './parent-watch.js';
import { type ServiceSignals, watchServiceSignals } from './signals.js';

/** Exit code of a shutdown that had to abandon something (an enqueue, a connection) at its deadline. */
export const EXIT_ABANDONED = 3;

export async function start(
  config: Config,
  jobs: JobList,
  opts: { role: Role; invocation?: Invocation },
): Promise<void> {
  let service: Service | undefined;
  // Installed before anything opens: a signal during start-up takes the same paths.
  const signals: ServiceSignals = watchServiceSignals({
    onSecond: (signal) => {
      console.error(`second signal (${signal}): exiting at once`);
      process.exit(1);
    },
    onReload: (signal) => {
      if (!service) return; // still starting: the web config being loaded is the current one
      service.app.log.info({ signal }, 'signal received: re-reading the metrics web config');
      void service.reloadWebConfig();
    },
  });
  try {
    // Refused before anything opens, as `config check` refuses it: TLS files that do not load.
    if (config.metricsWebConfig) readWebTls(config.metricsWebConfig);
    service = await startService(config, { jobs, role: opts.role, cli: opts.invocation?.cli });
  } catch (err) {
    signals.dispose();
    throw explainStartError(err, config, opts.invocation);
  }
  // Under npm: npm gone (SIGTERM or SIGKILL not passed on) stops the service as a SIGTERM does.
  const underNpm =
    opts.invocation?.npmScript !== undefined || opts.invocation?.cli.startsWith('npx ') === true;
  const parent = watchParent(underNpm, (why) => {
    service?.app.log.warn({ why }, 'started by npm, which is gone: stopping');
    process.kill(process.pid, 'SIGTERM');
  });
  const signal = await signals.stopped;
  parent.stop();
  service.app.log.info({ signal }, 'signal received');
  const report = await service.close();
  process.exitCode = report.abandoned.length > 0 ? EXIT_ABANDONED : 0;
  // What was abandoned may still hold a socket or a timer: it must not keep the process alive.
  if (report.abandoned.length > 0) setTimeout(() => process.exit(), 100).unref();
}

/** The command that starts the service again, as this one was started (`npm start`, `npx glacier-collector start`). */
export function startCommand(invocation: Invocation | undefined): string {
  if (invocation?.npmScript === 'start') return 'npm start';
  return `${invocation?.cli ?? PROGRAM} start`;
}

/** A start-up failure in words that lead to the fix; other errors as they are. */
export function explainStartError(err: unknown, config: Config, invocation?: Invocation): unknown {
  const code = (err as { cause?: { code?: string } }).cause?.code;
  const where = `METRICS_HOST:METRICS_PORT = ${config.metricsHost}:${config.metricsPort}`;
  if (code === 'EADDRINUSE') {
    return new Error(
      `${where} is taken: another collector (or another program) already listens there. Stop it, or give this process another port: METRICS_PORT=${config.metricsPort + 1} ${startCommand(invocation)} (METRICS_PORT=0 takes any free one)`,
      { cause: err },
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new Error(
      `${where}: this machine has no such address to listen on; use 0.0.0.0 (every interface) or 127.0.0.1 (this machine only) for METRICS_HOST`,
      { cause: err },
    );
  }
  return err;
}
