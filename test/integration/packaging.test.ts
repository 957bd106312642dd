// What `npm pack` ships, checked by maintained tools: publint (every file `exports`, `types` and `bin` name is in the
// tarball, the conditions are in a working order) and Are The Types Wrong (each entry resolves with its types under
// node16 ESM and bundlers). The full newcomer road from this tarball (init, install, the project's tests) is
// test/drills/newcomer.test.ts: it takes minutes.
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, buildAndPack, tarballBytes, type PackedPackage } from '../support/packed-package.js';

let packed: PackedPackage;

beforeAll(async () => {
  packed = await buildAndPack('durable-agent-pack-');
}, 300_000);

afterAll(() => packed?.cleanup());

describe('the npm package', () => {
  it('ships what its exports, types and bin point at (publint, attw)', async () => {
    const { messages, pkg } = await publint({
      pack: { tarball: tarballBytes(packed.tarball) },
      level: 'suggestion',
      strict: true,
    });
    expect(messages.map((message) => formatMessage(message, pkg))).toEqual([]);
    // An ESM-only package: CommonJS and node10 resolution are out of scope, everything else must resolve.
    const attw = join(ROOT, 'node_modules', '.bin', 'attw');
    await packed.sh(attw, [packed.tarball, '--profile', 'esm-only', '--format', 'table-flipped'], ROOT);
    const { stdout: listing } = await packed.sh('tar', ['-tzf', packed.tarball], packed.work);
    expect(listing).not.toMatch(/\.map$/m);
    expect(listing).toContain('package/scripts/install-temporal.mjs');
    expect(listing).toContain('package/templates/project/src/agents.ts');
    expect(listing).toContain('package/templates/project/_gitignore');
  });
});
