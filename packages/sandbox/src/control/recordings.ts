/**
 * `GET /_sandbox/recordings?format=har|jsonl&from=&to=&app_id=`: the request inspector's records
 * and the webhook deliveries of a period, as a file (recordings/index.ts). Answered as the file
 * itself (not in the JSON envelope), so `curl -o session.har` keeps it as it is.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseTimestamp } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import type { RequestInspector } from '../inspector';
import { buildRecording, RECORDING_FORMATS } from '../recordings';
import type { Webhooks } from '../webhooks';
import { readControlQuery } from './body';
import { ControlError } from './guard';

const timestamp = z.string({ error: 'must be given once' }).refine((text) => parseTimestamp(text) !== null, 'must be a timestamp like 2026-11-24T10:00:00.000000Z');

export const recordingQuerySchema = z.strictObject({
  format: z.enum(RECORDING_FORMATS, { error: 'must be har or jsonl' }).default('har'),
  from: timestamp.optional(),
  to: timestamp.optional(),
  app_id: z.string({ error: 'must be given once' }).min(1, 'must not be empty').max(64).optional(),
});

export function registerRecordingRoutes(
  app: FastifyInstance,
  deps: { ctx: EngineContext; inspector: RequestInspector; webhooks: Webhooks; headerWord: string },
): void {
  app.get('/recordings', async function exportRecording(request, reply) {
    const query = readControlQuery(request, recordingQuerySchema);
    if (query.from !== undefined && query.to !== undefined && (parseTimestamp(query.from) ?? 0) > (parseTimestamp(query.to) ?? 0)) {
      throw new ControlError('VALIDATION_ERROR', 'The query parameters failed validation.', { to: ['must not be before from'] });
    }
    const host = request.headers.host ?? `${request.socket.localAddress ?? '127.0.0.1'}:${request.socket.localPort ?? 0}`;
    const recording = buildRecording(
      { inspector: deps.inspector, deliveries: (appId) => deps.webhooks.deliveries(appId), baseUrl: `http://${host}`, headerWord: deps.headerWord, now: deps.ctx.clock.nowMicros() },
      { format: query.format, from: query.from, to: query.to, appId: query.app_id },
    );
    return reply
      .header('content-type', recording.contentType)
      .header('content-disposition', `attachment; filename="${recording.fileName}"`)
      .header('x-paydesk-recording-counts', `requests=${recording.counts.requests}; deliveries=${recording.counts.deliveries}`)
      .send(recording.body);
  });
}
