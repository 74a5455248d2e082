/**
 * The error answers bare-429 and gateway-html put in place of the engine's envelope (catalogue.ts).
 * Only the answer changes: the refusal itself (the count, the maintenance switch) is the default's.
 */
import type { ApiError } from '../api/errors';
import type { ServiceVariantState } from './state';

export interface VariantErrorAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** What a gateway in front of the service answers while the service is down: a page, not an API answer. */
export const GATEWAY_HTML_PAGE = `<!DOCTYPE html>
<html>
<head><title>503 Service Temporarily Unavailable</title></head>
<body>
<center><h1>503 Service Temporarily Unavailable</h1></center>
<hr><center>gateway</center>
</body>
</html>
`;

/** bare-429's body: an envelope with no `code` and no `errors` (the spec shows no machine code for 429). */
export const BARE_429_BODY = JSON.stringify({ success: false, message: 'Too Many Requests' });

/** The variant's answer for `error`, or null: the engine's own envelope. */
export function variantErrorAnswer(variants: ServiceVariantState, error: ApiError): VariantErrorAnswer | null {
  if (error.code === 'RATE_LIMIT_EXCEEDED' && variants.has('bare-429')) {
    return { status: 429, contentType: 'application/json; charset=utf-8', body: BARE_429_BODY };
  }
  if (error.code === 'MAINTENANCE_MODE' && variants.has('gateway-html')) {
    return { status: 503, contentType: 'text/html; charset=utf-8', body: GATEWAY_HTML_PAGE };
  }
  return null;
}
