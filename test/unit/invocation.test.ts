import { describe, expect, it } from 'vitest';
import { readInvocation } from '../../src/config/invocation.js';

/**
 * The command the tool prints is the one the user can type: how the process was started tells
 * which (npm's environment for what it runs, else the script's path and PATH).
 */
describe('readInvocation', () => {
  const cwd = '/home/me/glacier-collector';
  it.each([
    [
      'npx glacier-collector (npm exec)',
      { npm_lifecycle_event: 'npx', npm_command: 'exec' },
      ['/usr/bin/node', '/home/me/.npm/_npx/617e/node_modules/.bin/glacier-collector', 'status'],
      { cli: 'npx glacier-collector', npmScript: undefined },
    ],
    [
      'npm run cli -- (the sources through tsx)',
      { npm_lifecycle_event: 'cli', npm_package_name: 'glacier-collector' },
      ['/usr/bin/node', `${cwd}/src/cli.ts`, 'status'],
      { cli: 'npm run cli --', npmScript: 'cli' },
    ],
    [
      'npm start',
      { npm_lifecycle_event: 'start', npm_package_name: 'glacier-collector' },
      ['/usr/bin/node', `${cwd}/dist/src/cli.js`, 'start'],
      { cli: 'npx glacier-collector', npmScript: 'start' },
    ],
    [
      'npm run demo',
      { npm_lifecycle_event: 'demo', npm_package_name: 'glacier-collector' },
      ['/usr/bin/node', `${cwd}/dist/src/cli.js`, 'demo'],
      { cli: 'npx glacier-collector', npmScript: 'demo' },
    ],
    [
      'on PATH (npm link, npm install -g)',
      { PATH: '/usr/local/sbin:/usr/local/bin:/usr/bin' },
      ['/usr/bin/node', '/usr/local/bin/glacier-collector', 'status'],
      { cli: 'glacier-collector', npmScript: undefined },
    ],
    [
      "a project's node_modules/.bin, not on PATH",
      { PATH: '/usr/bin' },
      ['/usr/bin/node', '/srv/app/node_modules/.bin/glacier-collector', 'status'],
      { cli: 'npx glacier-collector', npmScript: undefined },
    ],
    [
      'node dist/src/cli.js (the container image)',
      { PATH: '/usr/bin' },
      ['/usr/bin/node', `${cwd}/dist/src/cli.js`, 'status'],
      { cli: 'node dist/src/cli.js', npmScript: undefined },
    ],
    [
      'node with the script elsewhere, a space in its path',
      { PATH: '/usr/bin' },
      ['/usr/bin/node', '/opt/my tools/glacier/dist/src/cli.js', 'status'],
      { cli: "node '/opt/my tools/glacier/dist/src/cli.js'", npmScript: undefined },
    ],
  ])('%s', (_what, env, argv, expected) => {
    expect(readInvocation({ env, argv, execArgv: [], cwd })).toEqual(expected);
  });

  it("keeps node's own flags: node --import tsx src/cli.ts", () => {
    const argv = ['/usr/bin/node', `${cwd}/src/cli.ts`, 'status'];
    expect(readInvocation({ env: {}, argv, execArgv: ['--import', 'tsx'], cwd }).cli).toBe(
      'node --import tsx src/cli.ts',
    );
  });
});
