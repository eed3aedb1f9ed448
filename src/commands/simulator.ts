/** `simulator`: serves the local Data API simulator until SIGINT/SIGTERM. */
import { simulatorOptionsFromFlags, startSimulator } from '../simulator/index.js';

export interface SimulatorFlags {
  port: string;
  host: string;
  seed: string;
  faults?: string;
  publicUrl?: string;
}

export async function serveSimulator(flags: SimulatorFlags): Promise<void> {
  const sim = await startSimulator(await simulatorOptionsFromFlags(flags));
  console.log(
    `Data API simulator listening on ${sim.url} (seed ${flags.seed}${flags.faults ? `, faults ${flags.faults}` : ''})`,
  );
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop).once('SIGTERM', stop);
}
