import { type Server, type Socket, connect, createServer } from 'node:net';
import { type AddressInfo } from 'node:net';

/** PostgreSQL protocol 3.0 in a StartupMessage; anything else (SSLRequest, GSSENCRequest, cancel) has no name. */
const PROTOCOL_3 = 196608;

/** The `application_name` of a StartupMessage (int32 length, int32 protocol, then key\0value\0 pairs). */
function applicationNameOf(startup: Buffer): string | undefined {
  if (startup.length < 8 || startup.readInt32BE(4) !== PROTOCOL_3) return undefined;
  const fields = startup.subarray(8).toString('utf8').split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'application_name') return fields[i + 1];
  return undefined;
}

/**
 * A TCP proxy in front of PostgreSQL that knows which service each connection belongs to (the launcher sets
 * `application_name`), so one service can be cut off from the database while the others keep theirs.
 */
export class DatabaseProxy {
  private readonly connections = new Map<Socket, string | undefined>();
  private readonly cutOff = new Set<string>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<DatabaseProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new DatabaseProxy(server, (server.address() as AddressInfo).port);
    server.on('connection', (client: Socket) => proxy.accept(client, target));
    return proxy;
  }

  /** `postgres://...` of the same database, through this proxy. */
  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** Drops the service's open connections and refuses its new ones until `reconnect`. */
  disconnect(service: string): void {
    this.cutOff.add(service);
    for (const [socket, name] of this.connections) if (name === service) socket.destroy();
  }

  reconnect(service: string): void {
    this.cutOff.delete(service);
  }

  async stop(): Promise<void> {
    for (const socket of this.connections.keys()) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    this.connections.set(client, undefined);
    client.on('error', () => undefined);
    client.once('close', () => this.connections.delete(client));
    client.once('data', (first: Buffer) => {
      const name = applicationNameOf(first);
      if (name !== undefined && this.cutOff.has(name)) {
        client.destroy();
        return;
      }
      this.connections.set(client, name);
      const server = connect(target.port, target.host);
      server.on('error', () => client.destroy());
      client.once('close', () => server.destroy());
      server.once('close', () => client.destroy());
      server.write(first);
      client.pipe(server);
      server.pipe(client);
    });
  }
}
