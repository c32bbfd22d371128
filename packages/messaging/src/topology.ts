import { serviceNames, type ServiceName } from '@gateway/contracts';

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
  /** Where delayed retries return from their delay queue, routed by their `x-retry-queue` header. */
  get retryExchange(): string {
    return `${this.prefix}retry`;
  }
  /** A delay queue: every message waits `delayMs` in it, then returns through the retry exchange. */
  delayQueue(delayMs: number): string {
    return `${this.prefix}retry.delay-${delayMs}ms`;
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
  /** The queues `services` consume from (each with its parking queue). */
  consumerQueues(services: readonly ServiceName[]): string[] {
    return services.flatMap((service) => [this.commandQueue(service), this.eventQueue(service)]);
  }
}

/** Every queue a service of the stack may consume from, named without prefix (as operators name them). */
export const consumerQueueNames: readonly string[] = new TopologyNames().consumerQueues(serviceNames);
