import { checkWebhookInput } from '../src/domain/webhook-input';

describe('checkWebhookInput', () => {
  it('accepts an https URL and known events, keeping each event once in first-seen order', () => {
    expect(
      checkWebhookInput({
        url: 'https://hooks.example.com/pay?x=1',
        events: ['payment.failed', 'payment.created', 'payment.failed'],
      }),
    ).toEqual({
      ok: true,
      value: { url: 'https://hooks.example.com/pay?x=1', events: ['payment.failed', 'payment.created'] },
    });
  });

  it.each([
    ['http://hooks.example.com/x'],
    ['ftp://hooks.example.com/x'],
    ['hooks.example.com/x'],
    ['https://user:pass@hooks.example.com/x'],
    [''],
  ])('refuses the url %j', (url) => {
    expect(checkWebhookInput({ url, events: ['payment.created'] })).toEqual({
      ok: false,
      invalidFields: ['url'],
    });
  });

  it.each([[['payment.refunded']], [['payment.created', 'PAYMENT.FAILED']], [[]]])(
    'refuses the events %j',
    (events) => {
      expect(checkWebhookInput({ url: 'https://hooks.example.com', events })).toEqual({
        ok: false,
        invalidFields: ['events'],
      });
    },
  );

  it('names every invalid field at once', () => {
    expect(checkWebhookInput({ url: 'http://x', events: ['nope'] })).toEqual({
      ok: false,
      invalidFields: ['url', 'events'],
    });
  });
});
