/**
 * How this process was started, so that every command the tool prints (the demo's next steps,
 * `config init`'s hint, the fix of a taken port, `status`'s "start it with", the completion script)
 * is one the user can type as it is: `glacier-collector …` is "command not found" in a clone, where
 * `npx glacier-collector …` works. Read from the environment npm sets for what it runs and from the
 * script's path, here because the config folder is the one reader of the environment.
 */
import { basename, delimiter, dirname, isAbsolute, relative, resolve, sep } from 'node:path';

export const PROGRAM = 'glacier-collector';

export interface Invocation {
  /**
   * The command that runs the CLI, the way this process was started: `glacier-collector` when the
   * command is on PATH, `npx glacier-collector` in a clone (or from another npm script), `npm run cli --`
   * from sources, `node dist/src/cli.js` when node was given the script.
   */
  cli: string;
  /** The npm script that started this process (`start`, `demo`), if npm ran one. */
  npmScript: string | undefined;
}

export interface InvocationSource {
  env?: NodeJS.ProcessEnv;
  /** process.argv: [node, script, ...args]. */
  argv?: readonly string[];
  /** process.execArgv: node's own flags (`--import tsx`). */
  execArgv?: readonly string[];
  cwd?: string;
}

/** A word for a POSIX shell: quoted only when it needs to be. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function readInvocation(source: InvocationSource = {}): Invocation {
  const env = source.env ?? process.env;
  const argv = source.argv ?? process.argv;
  const cwd = source.cwd ?? process.cwd();
  const event = env.npm_lifecycle_event;
  // `npx glacier-collector` (npm exec) runs the bin with npm_lifecycle_event=npx.
  if (event === 'npx') return { cli: `npx ${PROGRAM}`, npmScript: undefined };
  // `npm run cli -- <args>`: this package's script that runs the sources through tsx.
  if (event === 'cli' && env.npm_package_name === PROGRAM) return { cli: 'npm run cli --', npmScript: 'cli' };
  // Another npm script (`npm start`, `npm run demo`, a project's own script): npm runs it in a
  // package folder, where npx finds the command.
  if (event) return { cli: `npx ${PROGRAM}`, npmScript: event };
  const script = argv[1];
  if (!script) return { cli: PROGRAM, npmScript: undefined };
  if (basename(script) === PROGRAM) {
    // A bin link: on PATH (`npm link`, `npm install -g`), or in a node_modules/.bin (npx finds it).
    const dir = resolve(cwd, dirname(script));
    const onPath = (env.PATH ?? '').split(delimiter).some((p) => p !== '' && resolve(cwd, p) === dir);
    if (onPath) return { cli: PROGRAM, npmScript: undefined };
    if (dir.endsWith(`${sep}node_modules${sep}.bin`)) return { cli: `npx ${PROGRAM}`, npmScript: undefined };
    return { cli: shellWord(script), npmScript: undefined };
  }
  // `node dist/src/cli.js`, `node --import tsx src/cli.ts`: the script as a path from here.
  const path = isAbsolute(script) ? script : resolve(cwd, script);
  const rel = relative(cwd, path);
  const shown = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
  const flags = source.execArgv ?? process.execArgv;
  return { cli: ['node', ...flags, shown].map(shellWord).join(' '), npmScript: undefined };
}
