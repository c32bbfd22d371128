import { onFirstUse } from '../src/clients/on-first-use';

describe('onFirstUse: what the Solana watcher loads only when it is needed', () => {
  test('nothing is loaded until the first call; calls made meanwhile and after share the one load', async () => {
    let loads = 0;
    let finish: (value: { loaded: number }) => void = () => undefined;
    const load = jest.fn(() => {
      loads += 1;
      return new Promise<{ loaded: number }>((resolve) => (finish = resolve));
    });
    const loaded = onFirstUse(load);
    expect(loads).toBe(0);
    const first = loaded();
    const second = loaded();
    finish({ loaded: loads });
    const [a, b, c] = await Promise.all([first, second, loaded()]);
    expect(loads).toBe(1);
    expect(a).toBe(b);
    expect(c).toBe(a);
  });
});
