/**
 * The simulator as a process of its own, for benchmarks (its CPU is not the collector's) and fault
 * tests (it outlives the collector processes they kill). Started by `startSimulatorProcess`.
 *
 * argv[2]: JSON `{ options: SimulatorOptions without clock, clockMs?: number }`; a `clockMs` freezes
 * the simulator's clock there (the data does not grow), else it reads the system clock.
 * Its logs (`requests`, `served`) cannot be read from another process, so it keeps none unless
 * `options.logLimit` says otherwise. Prints `READY <url>` once listening; SIGTERM closes it.
 */
import { createManualClock } from '../../src/runtime/clock.js';
import { type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as { options?: SimulatorOptions; clockMs?: number };
const options: SimulatorOptions = { port: 0, logLimit: 0, ...spec.options };
if (spec.clockMs !== undefined) options.clock = createManualClock(spec.clockMs);
const sim = await startSimulator(options);
process.stdout.write(`READY ${sim.url}\n`);
const stop = () => void sim.close().then(() => process.exit(0));
process.once('SIGTERM', stop).once('SIGINT', stop);
