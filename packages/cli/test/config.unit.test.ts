import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnvironment } from '../src/config';

describe('which gateway the CLI talks to without GATEWAY_URL', () => {
  let dir: string;
  /** What `npm start` would leave in `dir` (any text, as a hand-edited or broken file may hold). */
  const leave = (text: string) => writeFileSync(join(dir, '.run/demo-business.json'), text);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-config-'));
    mkdirSync(join(dir, '.run'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('the stack `npm start` runs from this directory, on the port it was given', () => {
    leave(JSON.stringify({ api_key: 'sk_test_x', gateway_url: 'http://127.0.0.1:3100' }));
    expect(readEnvironment({}, dir).gatewayUrl).toBe('http://127.0.0.1:3100');
  });

  test('GATEWAY_URL always wins', () => {
    leave(JSON.stringify({ gateway_url: 'http://127.0.0.1:3100' }));
    expect(readEnvironment({ GATEWAY_URL: 'https://api.example.com' }, dir).gatewayUrl).toBe(
      'https://api.example.com',
    );
  });

  test('never another host than this machine, whatever the file says', () => {
    leave(JSON.stringify({ gateway_url: 'https://api.example.com' }));
    expect(readEnvironment({}, dir).gatewayUrl).toBe('http://localhost:3000');
    leave(JSON.stringify({ gateway_url: 'http://127.0.0.1.example.com:3100' }));
    expect(readEnvironment({}, dir).gatewayUrl).toBe('http://localhost:3000');
  });

  test('no file, or one it cannot read, leaves the default port 3000 here', () => {
    expect(readEnvironment({}, join(dir, 'elsewhere')).gatewayUrl).toBe('http://localhost:3000');
    for (const text of ['', 'not json', '{"gateway_url": 3100}', 'null', '{"gateway_url":"\u0000"}', '[]']) {
      leave(text);
      expect([text, readEnvironment({}, dir).gatewayUrl]).toEqual([text, 'http://localhost:3000']);
    }
  });
});
