/**
 * `start` under npm (`npx glacier-collector start`, `npm start`, `npm exec`): when npm goes away (it
 * got SIGTERM or SIGKILL and did not pass it on), the service must not run on orphaned. Its parent
 * (npm, or the shell npm ran the command in) and that one's parent are watched; once either is gone
 * the process sends itself SIGTERM, the ordinary graceful stop (signals.ts). Started another way (a
 * service manager, a container, a shell's `nohup`) nothing is watched.
 */
import { readFileSync } from 'node:fs';

/** How often the parents are looked at: a second is far below any shutdown deadline. */
export const PARENT_CHECK_MS = 1_000;

export interface ParentWatch {
  stop(): void;
}

/** The parent of `pid` from /proc (Linux); undefined elsewhere or when it cannot be read. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) && ppid > 1 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (signal 0: nothing is sent). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Watches the parents when npm started this process (`underNpm`); calls `onGone` once. */
export function watchParent(underNpm: boolean, onGone: (why: string) => void): ParentWatch {
  if (!underNpm) return { stop: () => undefined };
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  const timer = setInterval(() => {
    const why =
      process.ppid !== parent
        ? `its parent (pid ${parent}) is gone`
        : grandparent !== undefined && !alive(grandparent)
          ? `npm (pid ${grandparent}) is gone`
          : undefined;
    if (!why) return;
    clearInterval(timer);
    onGone(why);
  }, PARENT_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
