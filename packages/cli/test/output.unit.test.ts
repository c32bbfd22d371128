import { readEnvironment } from '../src/config';
import { formatRecord, formatTable, Output } from '../src/output';

const stream = (isTTY: boolean) => {
  const written: string[] = [];
  return { write: (text: string) => written.push(text), isTTY, text: () => written.join('') };
};

describe('CLI output', () => {
  test('a record is aligned, nested fields dotted, lists joined, a QR image abbreviated', () => {
    const text = formatRecord({
      payment_id: 'pay_1',
      pix: { qr_code: 'data:image/png;base64,iVBORw0KGgo', copia_e_cola: '000201' },
      events: ['payment.created', 'payment.confirmed'],
      failure_code: null,
    });
    expect(text.split('\n')).toEqual([
      'payment_id        pay_1',
      'pix.qr_code       data:image/png;base64,… (--json)',
      'pix.copia_e_cola  000201',
      'events            payment.created, payment.confirmed',
      'failure_code      -',
    ]);
  });

  test('a table shows only the columns its items have, in the given order', () => {
    expect(
      formatTable([{ status: 'paid', payment_id: 'pay_1' }], ['payment_id', 'refund_id', 'status']),
    ).toBe('PAYMENT_ID  STATUS\npay_1       paid');
    expect(formatTable([], ['payment_id'])).toBe('(none)');
  });

  test('colours in a terminal only, unless FORCE_COLOR or NO_COLOR say otherwise', () => {
    const colored = (stdoutIsTTY: boolean, env: NodeJS.ProcessEnv = {}) =>
      new Output({
        stdout: stream(stdoutIsTTY),
        stderr: stream(false),
        json: false,
        color: readEnvironment(env).color,
      }).style('green', 'ok') !== 'ok';
    expect(colored(true)).toBe(true);
    expect(colored(false)).toBe(false);
    expect(colored(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(colored(true, { NO_COLOR: '1' })).toBe(false);
  });

  test('a step animates in a terminal, is one plain line when piped, and is silent with --json', async () => {
    const run = async (stderrIsTTY: boolean, json: boolean) => {
      const stderr = stream(stderrIsTTY);
      const output = new Output({ stdout: stream(false), stderr, json, color: 'never' });
      await output.step(
        'creating a payment',
        async () => 'pay_1',
        (id) => id,
      );
      return stderr.text();
    };
    expect(await run(true, false)).toBe('\r\x1b[2K⠋ creating a payment\r\x1b[2K✓ creating a payment pay_1\n');
    expect(await run(false, false)).toBe('✓ creating a payment pay_1\n');
    expect(await run(false, true)).toBe('');
  });

  test('a failed step is marked and its error passed on', async () => {
    const stderr = stream(false);
    const output = new Output({ stdout: stream(false), stderr, json: false, color: 'never' });
    await expect(output.step('refunding', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(stderr.text()).toBe('✗ refunding\n');
  });
});
