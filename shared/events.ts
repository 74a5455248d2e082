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
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  constructor(private readonly options: EmitterOptions<Events> = {}) {}

  /** Adds a listener; returns its unsubscribe. */
  on<E extends keyof Events>(event: E, listener: Listener<Events[E]>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const stored = listener as Listener<never>;
    set.add(stored);
    return () => {
      set.delete(stored);
    };
  }

  emit<E extends keyof Events>(event: E, payload: Events[E]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    // A copy: a listener that unsubscribes (or subscribes another) does not change this round.
    for (const listener of [...set] as Listener<Events[E]>[]) {
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
