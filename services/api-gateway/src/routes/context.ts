import type { ApiGatewayConfig } from '../config';
import type { CommandSender } from '../http/commands';
import type { IdentityStore } from '../identity/identity-store';

/** What route modules need: the command channel, the identity store and the config. */
export interface RouteContext {
  commands: CommandSender;
  identities: IdentityStore;
  config: ApiGatewayConfig;
}
