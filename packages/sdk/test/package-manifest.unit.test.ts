import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const manifest = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')) as {
  engines: { node: string };
};

describe("the SDK's package.json", () => {
  test('asks for a Node that has every API the SDK calls (AbortSignal.any: 20.3)', () => {
    const minimum = /^>=(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(manifest.engines.node);
    expect(minimum).not.toBeNull();
    const [major, minor, patch] = minimum!.slice(1).map((part) => Number(part ?? 0));
    expect([major, minor, patch]).toEqual([20, expect.any(Number), expect.any(Number)]);
    expect(minor! * 1000 + patch!).toBeGreaterThanOrEqual(3 * 1000);
    expect(typeof AbortSignal.any).toBe('function');
  });
});
