import type { Broker } from '@gateway/messaging';
import type { ApiGatewayConfig } from '../config';
import type { CommandSender } from '../http/commands';
import type { IdentityStore } from '../identity/identity-store';

/** What route modules need: the command channel, the identity store, the config, and the broker for operators. */
export interface RouteContext {
  commands: CommandSender;
  /** Parked messages (the operator API lists and re-drives them). */
  broker: Broker;
  identities: IdentityStore;
  config: ApiGatewayConfig;
}
