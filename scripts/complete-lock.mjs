#!/usr/bin/env node
/**
 * Adds the lock entries npm could not write: the per-platform optional packages (Biome's CLI
 * binaries, Rollup's, msgpackr-extract's) of platforms whose build of the locked version the
 * registry we install from does not serve. npm skips an optional package it cannot fetch, writes
 * no entry for it, and then `npm ci` refuses the lock ("Missing: @biomejs/cli-win32-x64@ from lock
 * file") because package.json's tree names it.
 *
 * An added entry holds the version the parent pins, the platform fields npm uses to skip it
 * (os, cpu, libc, read from the package name the way these projects name them) and the parent's
 * dev/optional flags; it has no integrity, so a machine of that platform fetches it by version.
 * Run it after every `npm install` that rewrites the lock: `node scripts/complete-lock.mjs`.
 * It changes nothing when npm already wrote every entry.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const OSES = [
  'aix',
  'android',
  'darwin',
  'freebsd',
  'linux',
  'netbsd',
  'openbsd',
  'openharmony',
  'sunos',
  'win32',
];
const CPUS = ['arm64', 'x64', 'arm', 'ia32', 'loong64', 'mips64el', 'ppc64', 'riscv64', 's390x'];

/** `@rollup/rollup-linux-arm-musleabihf` → { os: ['linux'], cpu: ['arm'], libc: ['musl'] }. */
function platformOf(name) {
  const words = name.split('/').pop().split('-');
  const os = words.find((w) => OSES.includes(w));
  const cpu = words.find((w) => CPUS.includes(w));
  if (!os || !cpu) return undefined;
  const fields = { os: [os], cpu: [cpu] };
  if (os === 'linux') {
    // Biome and Rollup mark their glibc builds as such; msgpackr-extract's linux builds say nothing.
    if (words.some((w) => w.startsWith('musl'))) fields.libc = ['musl'];
    else if (!name.startsWith('@msgpackr-extract/')) fields.libc = ['glibc'];
  }
  return fields;
}

/** Where node looks for `dep` from the package at `path`: its own node_modules, then each ancestor's. */
function lookupPaths(path, dep) {
  const out = [];
  let base = path;
  for (;;) {
    out.push(`${base ? `${base}/` : ''}node_modules/${dep}`);
    if (!base) return out;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

function complete(lock) {
  const packages = lock.packages;
  const added = [];
  for (const [path, entry] of Object.entries(packages)) {
    for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const candidates = lookupPaths(path, dep);
      const found = candidates.find((c) => packages[c]);
      if (found) continue; // present (a wrong version is npm's to report, not ours to hide)
      const fields = platformOf(dep);
      if (!fields) continue; // not a platform package: npm's own job
      // The shallowest free place from which `path` still resolves it, as npm hoists.
      const where = candidates[candidates.length - 1];
      packages[where] = {
        version,
        ...(fields.cpu && { cpu: fields.cpu }),
        ...(entry.dev && { dev: true }),
        ...(fields.libc && { libc: fields.libc }),
        ...(entry.license && { license: entry.license }),
        optional: true,
        os: fields.os,
      };
      added.push(`${dep}@${version}`);
    }
  }
  // npm keeps entries sorted by path; so does this, so that the next `npm install` rewrites nothing.
  lock.packages = Object.fromEntries(
    Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'))),
  );
  return added;
}

const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const added = complete(lock);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.length} lock entries:\n  ${added.join('\n  ')}` : 'lock complete');
