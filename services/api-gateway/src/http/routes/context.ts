import type { Broker } from '@gateway/messaging';
import type { ApiGatewayConfig } from '../../config';
import type { CommandSender } from '../commands';
import type { IdentityDeps } from '../../application/authenticate-api-key';

/**
 * What route modules need: the command channel, the businesses and API keys the gateway keeps, the config, and the
 * broker for operators.
 */
export interface RouteContext {
  commands: CommandSender;
  /** Parked messages (the operator API lists and re-drives them). */
  broker: Broker;
  identity: IdentityDeps;
  config: ApiGatewayConfig;
}
