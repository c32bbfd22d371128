import type { ServiceName } from '@gateway/contracts';

/** Every broker name derives from a prefix, so test runs and deployments sharing a broker never see each other. */
export class TopologyNames {
  constructor(readonly prefix: string = '') {}

  get commandsExchange(): string {
    return `${this.prefix}commands`;
  }
  get eventsExchange(): string {
    return `${this.prefix}events`;
  }
  get deadLetterExchange(): string {
    return `${this.prefix}dead-letter`;
  }
  commandQueue(service: ServiceName): string {
    return `${this.prefix}${service}.commands`;
  }
  eventQueue(service: ServiceName): string {
    return `${this.prefix}${service}.events`;
  }
  parkingQueue(queue: string): string {
    return `${queue}.parking`;
  }
}
