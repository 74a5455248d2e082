/**
 * A state table: the allowed moves of one kind of record, as data a reader sees at once
 * (the console's twin of the engine's `transitions.ts`). Every write of a state goes through
 * `assertMove`; a forbidden move throws `ForbiddenTransition` and the caller's SQLite
 * transaction rolls back, so no half-applied move is ever stored.
 */
export class ForbiddenTransition extends Error {
  constructor(
    readonly machine: string,
    readonly from: string | null,
    readonly to: string,
    readonly subject: string,
  ) {
    super(`${machine} ${subject}: the move ${from ?? '(new)'} -> ${to} is not allowed`);
    this.name = 'ForbiddenTransition';
  }
}

export interface StateTable<S extends string> {
  readonly name: string;
  /** The states a record may be created in. */
  readonly initial: readonly S[];
  /** For each state, the states it may move to (a state listed in its own row may be rewritten). */
  readonly moves: { readonly [K in S]: readonly S[] };
  can(from: S | null, to: S): boolean;
  /** Throws ForbiddenTransition unless `from -> to` is in the table. */
  assertMove(from: S | null, to: S, subject: string): void;
}

export function stateTable<S extends string>(name: string, initial: readonly S[], moves: { readonly [K in S]: readonly S[] }): StateTable<S> {
  const can = (from: S | null, to: S) => (from === null ? initial.includes(to) : moves[from].includes(to));
  return {
    name,
    initial,
    moves,
    can,
    assertMove(from, to, subject) {
      if (!can(from, to)) throw new ForbiddenTransition(name, from, to, subject);
    },
  };
}
