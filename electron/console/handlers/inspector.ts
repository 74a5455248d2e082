/**
 * The Sandbox panel's request inspector and sign helper, on the in-process engine: recorded
 * requests (newest first, filtered) and signed examples made with the local sandbox's fixture
 * keys only (never a key from the keychain).
 */
import { resources } from '../../../shared/i18n';
import { keyTypeForPath } from '../../client';
import { signedExample } from '../sandbox-snippets';
import { HandlerFailure, type Context, type HandlerImpls } from './context';

type InspectorChannel = 'sandbox:requests' | 'sandbox:signRequest';

export function inspectorHandlers(context: Context): HandlerImpls<InspectorChannel> {
  return {
    async 'sandbox:requests'({ status, key, cursor, limit }) {
      const engine = context.requireEngine();
      return engine.requests({
        limit,
        ...(cursor === undefined ? {} : { cursor: Number(cursor) }),
        ...(status === undefined ? {} : { status: status.endsWith('xx') ? (status as `${1 | 2 | 3 | 4 | 5}xx`) : Number(status) }),
        ...(key === undefined ? {} : { key }),
      });
    },

    async 'sandbox:signRequest'(input) {
      const engine = context.requireEngine();
      let keyType = input.keyType;
      if (keyType === undefined) {
        try {
          keyType = keyTypeForPath(input.path);
        } catch {
          throw new HandlerFailure('INVALID_INPUT', `Choose the key type: ${input.path} is not a path of the API.`, { fields: { keyType: ['is required for this path'] } });
        }
      }
      const key = engine.keys().find((candidate) => candidate.environment === 'sandbox' && candidate.type === keyType);
      if (!key) throw new HandlerFailure('SANDBOX_UNAVAILABLE', `The local sandbox has no active sandbox ${keyType} key.`);
      return signedExample({
        baseUrl: engine.url,
        method: input.method,
        path: input.path,
        query: input.query,
        body: input.method === 'POST' ? input.body : '',
        keyType,
        publicKey: key.publicKey,
        secretKey: key.secretKey,
        // Real time, whatever the sandbox clock says: the engine checks the window against it.
        nowSeconds: engine.wallSeconds(),
        words: resources[input.language].inspector.snippet,
      });
    },
  };
}
