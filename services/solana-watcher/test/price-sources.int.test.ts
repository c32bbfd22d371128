import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { BinanceTickerProvider, CoinGeckoProvider } from '../src/clients/price-sources';
import { invert, rationalFromDecimal } from '../src/domain/rational';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function fakeServer(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

describe('HTTP price providers', () => {
  const servers: Server[] = [];
  afterEach(() => servers.splice(0).forEach((server) => server.close()));

  it('CoinGecko: asks simple/price for the tokens in BRL and inverts the prices exactly, with their update time', async () => {
    const updatedAt = Math.floor(Date.now() / 1000) - 30;
    let requested = '';
    const { url, server } = await fakeServer((req, res) => {
      requested = req.url ?? '';
      json(res, {
        'usd-coin': { brl: 5.45, last_updated_at: updatedAt },
        tether: { brl: 5.46, last_updated_at: updatedAt },
      });
    });
    servers.push(server);
    const quotes = await new CoinGeckoProvider(url).quotes(['USDC', 'USDT', 'EURC']);
    const query = new URL(requested, url);
    expect(query.pathname).toBe('/simple/price');
    expect(query.searchParams.get('ids')).toBe('usd-coin,tether,euro-coin');
    expect(query.searchParams.get('vs_currencies')).toBe('brl');
    expect(quotes).toEqual([
      {
        source: 'coingecko',
        token: 'USDC',
        tokenPerBrl: invert(rationalFromDecimal('5.45')),
        observedAt: updatedAt * 1000,
      },
      {
        source: 'coingecko',
        token: 'USDT',
        tokenPerBrl: invert(rationalFromDecimal('5.46')),
        observedAt: updatedAt * 1000,
      },
    ]);
  });

  it('Binance: reads the USDTBRL ticker price string', async () => {
    let requested = '';
    const { url, server } = await fakeServer((req, res) => {
      requested = req.url ?? '';
      json(res, { symbol: 'USDTBRL', price: '5.47100000' });
    });
    servers.push(server);
    const [quote] = await new BinanceTickerProvider(url).quotes(['USDT']);
    expect(requested).toBe('/api/v3/ticker/price?symbol=USDTBRL');
    expect(quote?.tokenPerBrl).toEqual(invert(rationalFromDecimal('5.47100000')));
  });

  it('a source answering an error status fails instead of returning a price', async () => {
    const { url, server } = await fakeServer((_req, res) => json(res, { error: 'rate limited' }, 429));
    servers.push(server);
    await expect(new CoinGeckoProvider(url).quotes(['USDC'])).rejects.toThrow(/429/);
  });
});
