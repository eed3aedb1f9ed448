/**
 * Every figure module of bench/figures/ runs once at a tiny scale (`--runs 1 --scale 0.001`), so a
 * change that breaks a figure (a column added, a job without a declared cost, an API renamed)
 * fails here rather than at the next `npm run bench`. The figures are not judged: timings at this
 * scale mean nothing, and tests never assert wall-clock times.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Figure, setBenchOptions } from '../../bench/lib.js';

const figuresDir = new URL('../../bench/figures/', import.meta.url);
/** Modules this smoke run leaves out, and why. */
const skipped: Record<string, string> = {
  // Minutes even at its smallest; the fault suite (vitest.faults.config.ts) runs the soak itself.
  soak: 'runs for minutes; test/soak runs in the fault suite',
  // Held against real one-minute budget windows (Redis): a minute and a half at any scale.
  'rewards-backfill': 'a minute and a half at any scale (real one-minute budget windows)',
};
const modules = readdirSync(figuresDir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();

describe('bench smoke: every figure module at a tiny scale', () => {
  setBenchOptions({ runs: 1, scale: 0.001 });
  it('finds the modules', () => {
    expect(modules.length).toBeGreaterThan(5);
  });
  for (const name of modules) {
    it.skipIf(name in skipped)(`${name} runs and returns its figures`, { timeout: 120_000 }, async () => {
      const mod = (await import(new URL(`${name}.ts`, figuresDir).href)) as { run(): Promise<Figure[]> };
      const figures = await mod.run();
      expect(figures.length, `${name} returned no figure`).toBeGreaterThan(0);
      for (const f of figures) {
        expect(f.id, `${name}: a figure without an id`).toMatch(/\S/);
        expect(typeof f.value, `${f.id}: value`).toBe('number');
      }
    });
  }
});
