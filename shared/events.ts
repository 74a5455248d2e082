/**
 * The one event emitter of the code base: listeners per event name, the payload typed by an event
 * map (`{ status: StatusEvent; … }`). The engine's event hub, its clock, the console runtime's push
 * events and the renderer's browser transport all use it. No Node, no DOM: it runs on both sides.
 */

export type Listener<P> = (payload: P) => void;

export interface EmitterOptions<Events> {
  /**
   * Called when a listener throws; the other listeners still run. Without it the error leaves
   * `emit` at once, to its caller (the listeners after it do not run).
   */
  onListenerError?: (error: unknown, event: keyof Events) => void;
}

export class TypedEmitter<Events extends object> {
  /**
   * Each event's listeners as an array that is replaced, never changed, when one is added or
   * removed: `emit` walks it without copying (events are many, subscriptions few), and a listener
   * added or removed while an event is handed out does not change who receives that event.
   */
  private readonly listeners = new Map<keyof Events, readonly Listener<never>[]>();

  constructor(private readonly options: EmitterOptions<Events> = {}) {}

  /** Adds a listener (once: adding the same function again changes nothing); returns its unsubscribe. */
  on<E extends keyof Events>(event: E, listener: Listener<Events[E]>): () => void {
    const stored = listener as Listener<never>;
    const current = this.listeners.get(event) ?? [];
    if (!current.includes(stored)) this.listeners.set(event, [...current, stored]);
    return () => {
      this.listeners.set(event, (this.listeners.get(event) ?? []).filter((candidate) => candidate !== stored));
    };
  }

  emit<E extends keyof Events>(event: E, payload: Events[E]): void {
    const current = this.listeners.get(event) as readonly Listener<Events[E]>[] | undefined;
    if (!current) return;
    for (const listener of current) {
      if (!this.options.onListenerError) {
        listener(payload);
        continue;
      }
      try {
        listener(payload);
      } catch (error) {
        this.options.onListenerError(error, event);
      }
    }
  }

  /** The events that have had a listener (a transport subscribes to those at its source). */
  events(): (keyof Events)[] {
    return [...this.listeners.keys()];
  }
}
