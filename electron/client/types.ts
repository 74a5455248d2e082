/**
 * The client's public types: the contract the engine tests and the console's main process code
 * against. Add to it, never change it.
 */
import type { Dispatcher } from 'undici';
import type { Environment } from '../../shared/contract/codes';
import type { ServiceTransaction } from '../../shared/contract/reading';
import type { Balance, FieldErrors, TransactionRequest } from '../../shared/contract/schemas';

export interface ClientProfile {
  /** e.g. `http://127.0.0.1:4010`; may carry a path prefix (`https://api.x.com/gw`) that is part of the signed path. */
  baseUrl: string;
  /** Sent as `X-<WORD>-Environment`. */
  environment: Environment;
  /** Default `SVC`, giving `X-SVC-Timestamp` and so on. */
  headerWord?: string;
  /** Used for `/v1/payments*`. */
  paymentPublicKey: string;
  /** Used for `/v1/payouts*` and `/v1/balance`. */
  payoutPublicKey: string;
}

/** Called once per HTTP attempt to get the secret for a public key (the keychain layer); never stored, never logged. */
export type SecretSource = (publicKey: string) => Promise<string>;

export interface ClientOptions {
  /**
   * Defaults 5 s / 15 s / 15 s. `bodyMs` is the longest pause between two chunks of the response
   * body. `connectMs` (TCP and TLS) applies to the client's own pool, not to a `dispatcher` passed in.
   * undici checks header and body timeouts on a coarse timer: they fire up to about 1 s late.
   */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  /** GET only. `attempts` counts the first try (default 3); delays default 300 ms doubling up to 8 s. */
  retry?: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** ms since epoch, for the timestamp header. */
  now?: () => number;
  /** Not closed by `close()`: whoever made it owns it. */
  dispatcher?: Dispatcher;
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1), for backoff jitter (tests pin it). Default Math.random. */
  random?: () => number;
  /** A response body larger than this is a bad response (default 4 MiB). */
  maxResponseBytes?: number;
}

export type ClientResult<T> =
  | { kind: 'success'; httpStatus: number; message: string | null; data: T }
  | {
      kind: 'api-error';
      httpStatus: number;
      code: string;
      message: string;
      fields: FieldErrors | null;
      retryAfterSeconds: number | null;
    }
  /** Body not JSON, not an envelope, or data not the expected shape; the message names the HTTP status. */
  /** `answer`: a success envelope's `data` as received, when that data was not readable (kept: docs/decisions/tolerant-reader.md). */
  | { kind: 'bad-response'; httpStatus: number; message: string; answer?: unknown }
  /** `not-sent`: no byte of the request left this process. `unknown`: the server may have received it. */
  | { kind: 'transport'; outcome: 'not-sent' | 'unknown'; message: string; cause: string };

export type ClientResultKind = ClientResult<unknown>['kind'];

export interface PaydeskClient {
  createPayment(body: TransactionRequest): Promise<ClientResult<ServiceTransaction>>;
  initiatePayout(body: TransactionRequest): Promise<ClientResult<ServiceTransaction>>;
  retrievePayment(id: string, opts?: { by?: 'transaction_id' | 'external_id' }): Promise<ClientResult<ServiceTransaction>>;
  verifyPayment(id: string): Promise<ClientResult<ServiceTransaction>>;
  /** Local-engine extension `GET /v1/payouts/{id}`. */
  retrievePayout(id: string, opts?: { by?: 'transaction_id' | 'external_id' }): Promise<ClientResult<ServiceTransaction>>;
  /** `GET /v1/payouts/{id}/verify`. */
  verifyPayout(id: string): Promise<ClientResult<ServiceTransaction>>;
  /** `GET /v1/balance` (payout key). */
  getBalance(): Promise<ClientResult<Balance>>;
  /** Closes the client's own connection pool (not a dispatcher passed in). */
  close(): Promise<void>;
}
