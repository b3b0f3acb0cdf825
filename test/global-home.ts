import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The suite's own NOSH_HOME: calls that name no base (the CLI's `--root DIR`, a library
 * `createNosh({ root })`) keep their store and lock files in the default base, which would
 * otherwise be the home folder of whoever runs the tests, shared with their own nosh and with
 * an earlier run that was killed.
 */
export default function setup(): () => void {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-home-'));
  process.env.NOSH_HOME = home;
  return () => fs.rmSync(home, { recursive: true, force: true });
}
