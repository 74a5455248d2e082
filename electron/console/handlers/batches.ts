/**
 * Bulk payouts from a CSV file (issue 10): the batches:* channels.
 */
import type { Channel } from '../../../shared/api';
import { HandlerFailure, type Context, type HandlerImpls } from './context';

type BatchChannel = Extract<Channel, `batches:${string}`>;

export function batchHandlers(_context: Context): HandlerImpls<BatchChannel> {
  const notYet = async (): Promise<never> => {
    throw new HandlerFailure('INTERNAL', 'Bulk payouts are NOT implemented yet in this build (contract only).');
  };
  return {
    'batches:template': notYet,
    'batches:import': notYet,
    'batches:updateRow': notYet,
    'batches:dropRows': notYet,
    'batches:invalidRows': notYet,
    'batches:preview': notYet,
    'batches:rehearse': notYet,
    'batches:prepare': notYet,
    'batches:start': notYet,
    'batches:pause': notYet,
    'batches:resume': notYet,
    'batches:cancel': notYet,
    'batches:get': notYet,
    'batches:list': notYet,
    'batches:retryFailed': notYet,
    'batches:report': notYet,
  };
}
