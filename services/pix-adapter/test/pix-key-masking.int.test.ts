import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@gateway/observability';
import { recordingLogger } from '@gateway/testkit';
import { ApiPixClient } from '../src/clients/psp/api-pix-client';
import { PspError } from '../src/clients/psp/psp-error';
import { registerPspWebhook } from '../src/application/register-psp-webhook';
import { maskPixKey } from '../src/domain/pix-key';

/** A CPF as a Pix key: a person's document number. */
const CPF_KEY = '52998224725';

/** A PSP that refuses every API call with a problem naming the key in the path, as some PSPs' messages do. */
async function pspEchoingTheKey(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/oauth/token') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 't', token_type: 'Bearer', expires_in: 300 }));
      return;
    }
    const key = decodeURIComponent(req.url?.split('/').pop() ?? '');
    res.writeHead(400, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ title: 'Chave inválida', detail: `A chave ${key} não pertence ao recebedor` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the Pix key (a CPF, CNPJ, phone or e-mail) is never shown in full', () => {
  test('masked, it keeps its first three and last two characters; a short one is masked whole', () => {
    expect(maskPixKey(CPF_KEY)).toBe('529******25');
    expect(maskPixKey('ana@example.com')).toBe('ana**********om');
    expect(maskPixKey('+55119')).toBe('******');
  });

  test("a PSP refusal that echoes the key (registering the callback URL) reaches the error's message and the log masked", async () => {
    const psp = await pspEchoingTheKey();
    const client = new ApiPixClient(
      {
        baseUrl: psp.url,
        pathPrefix: '/v2',
        oauthTokenUrl: `${psp.url}/oauth/token`,
        clientId: 'c',
        clientSecret: 's',
        timeoutMs: 2000,
        maxRetries: 0,
      },
      { retryBaseDelayMs: 5, logger: createLogger('pix-key-test', 'silent') },
    );
    const { logger, lines } = recordingLogger();
    try {
      const refused = await client.registerWebhook(CPF_KEY, 'https://callbacks.example.com').then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(PspError);
      expect((refused as PspError).message).toContain('A chave 529******25 não pertence');

      const registration = await registerPspWebhook(client, CPF_KEY, 'https://callbacks.example.com', logger);
      await registration.stop();
      expect(lines.map((line) => line.msg)).toEqual(['PIX callback URL not registered, retrying']);
      expect(JSON.stringify(lines)).not.toContain(CPF_KEY);
    } finally {
      await client.close();
      psp.server.close();
    }
  });

  test('a registration that works logs the key masked', async () => {
    const { logger, lines } = recordingLogger();
    const psp = { registerWebhook: async () => undefined } as unknown as ApiPixClient;
    const registration = await registerPspWebhook(psp, CPF_KEY, 'https://callbacks.example.com', logger);
    await registration.stop();
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'PIX callback URL registered at the PSP', chave: '529******25' }),
    ]);
  });
});
