/** `simulator`: serves the local Data API simulator until SIGINT/SIGTERM. */
import { PROGRAM } from '../config/invocation.js';
import { simulatorOptionsFromFlags, startSimulator } from '../simulator/index.js';

export interface SimulatorFlags {
  port: string;
  host: string;
  seed: string;
  faults?: string;
  publicUrl?: string;
}

/** `simulator`: serves until SIGINT/SIGTERM; says how to point the collector at it (`cli`: how the user runs it). */
export async function serveSimulator(flags: SimulatorFlags, cli = PROGRAM): Promise<void> {
  const sim = await startSimulator(await simulatorOptionsFromFlags(flags));
  console.log(
    [
      `Data API simulator listening on ${sim.url} (seed ${flags.seed}${flags.faults ? `, faults ${flags.faults}` : ''})`,
      `Point the collector at it (no API key needed), e.g. from another terminal:`,
      `  GLACIER_BASE_URL=${sim.url} ${cli} start`,
    ].join('\n'),
  );
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop).once('SIGTERM', stop);
}
