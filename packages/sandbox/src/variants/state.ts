/**
 * The service variants in force (catalogue.ts), live: read on every request that a variant can
 * change, replaced as a whole by `set`. Not stored: like the settle delay and the rate limit, a
 * restart takes them from the options again.
 */
import { NO_VARIANTS, parseServiceVariants, type ServiceVariant, type ServiceVariants } from './catalogue';

/** The variants that reshape a transaction answer (and so bypass the retrieve cache, whose texts are the default's). */
const SHAPING: readonly ServiceVariant[] = ['nulls-omitted', 'millisecond-timestamps', 'extra-fields', 'unlisted-status'];

export class ServiceVariantState {
  private current: ServiceVariants = NO_VARIANTS;
  private on = new Set<ServiceVariant>();
  private shaping = false;
  /** Creates committed since the variants were last set (counted only while reset-after-create is on). */
  private creates = 0;

  constructor(initial: unknown = NO_VARIANTS) {
    this.set(initial);
  }

  /** Validates (ServiceVariantsError naming each bad field), replaces the variants and starts the create count again. */
  set(input: unknown): ServiceVariants {
    const parsed = parseServiceVariants(input);
    this.current = parsed;
    this.on = new Set(parsed.enabled);
    this.shaping = SHAPING.some((name) => this.on.has(name));
    this.creates = 0;
    return this.read();
  }

  read(): ServiceVariants {
    return { enabled: [...this.current.enabled], resetEvery: this.current.resetEvery };
  }

  has(name: ServiceVariant): boolean {
    return this.on.has(name);
  }

  /** True when some variant changes what a transaction object or its envelope looks like. */
  shapesTransactions(): boolean {
    return this.shaping;
  }

  /**
   * Counts one committed create; true when reset-after-create is on and this is the Nth, 2Nth…
   * create since the variants were set (N = resetEvery), whose connection is then reset.
   */
  resetsThisCreate(): boolean {
    if (!this.on.has('reset-after-create')) return false;
    this.creates += 1;
    return this.creates % this.current.resetEvery === 0;
  }
}
