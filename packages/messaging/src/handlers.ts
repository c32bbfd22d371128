import {
  subscribedEventNames,
  type CommandDefinition,
  type EventDefinition,
  type MessageDefinition,
  type ServiceName,
} from '@gateway/contracts';
import type { HandlerTable, MessageContext } from './consumer';

/** A command's handler: its payload in, its reply's result out, both as its definition types them. */
export type CommandHandler<P, R> = (command: P, context: MessageContext) => Promise<R>;

/** An event's handler: its payload in, as its definition types it; nothing goes back. */
export type EventHandler<P> = (event: P, context: MessageContext) => Promise<void>;

export interface EventHandling {
  /**
   * false: handled when it arrives, but the events queue is not bound to it (it reaches a queue an earlier version
   * bound to a wider pattern, and costs nothing where nobody needs it). Bound by default.
   */
  bind?: boolean;
}

/** How the broker consumes a service's queues once its handlers are all registered. */
export interface QueueConsumers {
  consumeCommands(service: ServiceName, handlers: HandlerTable): Promise<void>;
  consumeEvents(service: ServiceName, bindings: readonly string[], handlers: HandlerTable): Promise<void>;
}

/**
 * The messages one service handles, each registered once with its definition from `@gateway/contracts`:
 * `handle(definition, handler)` types the handler's payload (and a command's result) by the definition, so a handler
 * that does not fit its message does not compile. `consume()` then declares the service's queues and starts consuming
 * them: the commands queue when it handles commands, the events queue bound to the names of the events it handles.
 * A service of the stack (`exactSubscriptions`) must bind exactly the events its `eventSubscriptions` (@gateway/contracts)
 * declare, which every service declares for every other when it connects; `consume()` refuses anything else.
 */
export class ServiceHandlers {
  private readonly commands = new Map<
    string,
    (payload: unknown, context: MessageContext) => Promise<unknown>
  >();
  private readonly events = new Map<
    string,
    (payload: unknown, context: MessageContext) => Promise<unknown>
  >();
  private readonly bindings: string[] = [];
  private consumed = false;

  constructor(
    readonly service: ServiceName,
    /** Whether the bound events must be exactly the service's `eventSubscriptions` (BrokerOptions.exactSubscriptions). */
    private readonly exactSubscriptions: boolean,
    private readonly queues: QueueConsumers,
  ) {}

  handle<P, R>(definition: CommandDefinition<P, R>, handler: CommandHandler<NoInfer<P>, NoInfer<R>>): this;
  handle<P>(definition: EventDefinition<P>, handler: EventHandler<NoInfer<P>>, options?: EventHandling): this;
  handle(
    definition: MessageDefinition<unknown>,
    handler: (payload: never, context: MessageContext) => Promise<unknown>,
    options: EventHandling = {},
  ): this {
    if (this.consumed) throw new Error(`${this.service}: ${definition.name} registered after consume()`);
    const erased = handler as (payload: unknown, context: MessageContext) => Promise<unknown>;
    if (this.commands.has(definition.name) || this.events.has(definition.name))
      throw new Error(`${this.service}: ${definition.name} has a handler already`);
    if (definition.kind === 'command') {
      if (definition.handledBy !== this.service)
        throw new Error(`${definition.name} is handled by ${definition.handledBy}, not ${this.service}`);
      this.commands.set(definition.name, erased);
    } else {
      this.events.set(definition.name, erased);
      if (options.bind !== false) this.bindings.push(definition.name);
    }
    return this;
  }

  /** Declares the service's queues (bound as its event handlers say) and consumes them, now and after reconnects. */
  async consume(): Promise<void> {
    if (this.consumed) throw new Error(`${this.service}: consume() called twice`);
    this.consumed = true;
    if (this.exactSubscriptions) this.checkSubscriptions();
    if (this.commands.size > 0) await this.queues.consumeCommands(this.service, this.commands);
    if (this.events.size > 0) await this.queues.consumeEvents(this.service, this.bindings, this.events);
  }

  /** Throws unless the events bound here are exactly those `eventSubscriptions` declares for the service. */
  private checkSubscriptions(): void {
    const declared = subscribedEventNames(this.service);
    const unhandled = declared.filter((name) => !this.bindings.includes(name));
    const undeclared = this.bindings.filter((name) => !declared.includes(name));
    if (unhandled.length === 0 && undeclared.length === 0) return;
    throw new Error(
      `${this.service}: its event handlers and its eventSubscriptions (@gateway/contracts) disagree:` +
        (unhandled.length > 0 ? ` declared without a handler: ${unhandled.join(', ')};` : '') +
        (undeclared.length > 0 ? ` handled but not declared: ${undeclared.join(', ')};` : ''),
    );
  }
}
