import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { GatewayConnectionError, GatewayError } from '@gateway/sdk';
import { testLogger } from '@gateway/testkit';
import { GatewayAdmin, isOperatorRefusal, OperatorApiError } from '../src/clients/gateway-admin';
import { dashboardErrorHandler } from '../src/http/error-handler';

// The views are ES modules jest does not load (the e2e tests render them in a browser): the page is sent as its title
// and text, the two things a person reads on an error page.
jest.mock('../src/http/views/other', () => ({
  errorPage: (_viewer: unknown, title: string, text: string) => ({ title, text }),
}));
jest.mock('../src/http/respond', () => ({
  sendPage: (res: express.Response, status: number, page: { title: string; text: string }) =>
    res.status(status).type('html').send(`<title>${page.title}</title><p>${page.text}</p>`),
}));

/** The page a person gets when a route lets an error of the gateway (or any other) through. */
describe('the error pages', () => {
  let server: Server;
  let url: string;
  const gatewayError = (status: number, code: string) =>
    new GatewayError(code, 'Resposta do gateway', {
      status,
      requestId: 'req_1',
      retryAfterSeconds: null,
      idempotencyKey: null,
    });

  beforeAll(async () => {
    const app = express();
    const failWith =
      (err: unknown) => (_req: express.Request, _res: express.Response, next: express.NextFunction) =>
        next(err);
    app.get('/proibido', failWith(gatewayError(403, 'FORBIDDEN')));
    app.get('/inexistente', failWith(gatewayError(404, 'NOT_FOUND')));
    app.get('/muitas', failWith(gatewayError(429, 'RATE_LIMITED')));
    app.get('/fora', failWith(new GatewayConnectionError('down', null, { cause: new Error('x') })));
    app.get('/quebrado', failWith(new Error('bug')));
    app.get('/operador-muitas', failWith(new OperatorApiError(429, 'RATE_LIMITED', 'limite por endereço')));
    app.get('/operador-fora', failWith(new OperatorApiError(503, 'SERVICE_UNAVAILABLE', 'fora')));
    app.get('/operador-quebrado', failWith(new OperatorApiError(500, 'INTERNAL_ERROR', 'bug')));
    app.use(dashboardErrorHandler(testLogger('dashboard-errors')));
    server = createServer(app).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const page = async (path: string) => {
    const response = await fetch(`${url}${path}`);
    return { status: response.status, text: await response.text() };
  };

  test('a FORBIDDEN the gateway answered (a restricted key, a missing scope) is a 403 "Sem permissão" page, not a 500', async () => {
    const forbidden = await page('/proibido');
    expect(forbidden.status).toBe(403);
    expect(forbidden.text).toContain('<title>Sem permissão');
    expect(forbidden.text).toContain('O gateway não permite esta ação para esta empresa.');
    expect(forbidden.text).not.toContain('Algo deu errado');
  });

  test('the other answers keep their pages: not found, too many requests, the gateway away, anything else', async () => {
    expect(await page('/inexistente')).toEqual({
      status: 404,
      text: expect.stringContaining('Não encontrado'),
    });
    expect(await page('/muitas')).toEqual({
      status: 429,
      text: expect.stringContaining('Muitas requisições'),
    });
    expect(await page('/fora')).toEqual({
      status: 503,
      text: expect.stringContaining('Serviço indisponível'),
    });
    expect(await page('/quebrado')).toEqual({
      status: 500,
      text: expect.stringContaining('Algo deu errado'),
    });
  });

  test("the operator API's too many requests and absence get the same pages as the public API's, not a 500", async () => {
    expect(await page('/operador-muitas')).toEqual({
      status: 429,
      text: expect.stringContaining('Muitas requisições'),
    });
    expect(await page('/operador-fora')).toEqual({
      status: 503,
      text: expect.stringContaining('Serviço indisponível'),
    });
    expect(await page('/operador-quebrado')).toEqual({
      status: 500,
      text: expect.stringContaining('Algo deu errado'),
    });
  });

  test('an operator API that does not answer (nothing listening) is its 503, not a bare network error', async () => {
    const closed = createServer().listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => closed.once('listening', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const admin = new GatewayAdmin(`http://127.0.0.1:${port}`, 'token-de-teste', 2000);
    await expect(admin.listParkedMessages()).rejects.toMatchObject({
      name: 'OperatorApiError',
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });

  test("a form shows the operator API's refusal in its words, but not its too many requests, not found or absence", () => {
    const refusal = (status: number) => isOperatorRefusal(new OperatorApiError(status, 'CODE', 'palavras'));
    expect([400, 409, 422].map(refusal)).toEqual([true, true, true]);
    expect([404, 429, 500, 503].map(refusal)).toEqual([false, false, false, false]);
    expect(isOperatorRefusal(new Error('palavras'))).toBe(false);
  });
});
