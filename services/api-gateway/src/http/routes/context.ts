import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import type { Broker } from '@gateway/messaging';
import type { ApiGatewayConfig } from '../../config';
import type { CommandSender } from '../commands';
import type { IdentityDeps } from '../../application/authenticate-api-key';
import type { PaymentCopies } from '../../application/shared/payment-copies';

/**
 * What route modules need: the command channel, the businesses and API keys the gateway keeps, the config, the
 * broker for operators, the stores the readiness probe checks, and the document the reference serves.
 */
export interface RouteContext {
  commands: CommandSender;
  /** Parked messages (the operator API lists and re-drives them). */
  broker: Broker;
  identity: IdentityDeps;
  config: ApiGatewayConfig;
  dataSource: DataSource;
  redis: Redis;
  /** The gateway's payment copies, which payment reads are answered from. */
  paymentCopies: PaymentCopies;
  /**
   * This gateway's OpenAPI document (served at /openapi.json, rendered at /docs), built on the first call and kept:
   * converting every operation's schemas takes about 200 ms, which a start no longer waits for.
   */
  openApiDocument(): Record<string, unknown> & { info: { title: string } };
}
