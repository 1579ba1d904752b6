import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION, runCli } from '../support/cli.js';

describe('decide --version', () => {
  it('prints the version package.json states, and only that', async () => {
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stdout: `${PACKAGE_VERSION}\n`, stderr: '' });
  });
});
