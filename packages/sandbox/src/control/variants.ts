/**
 * `/_sandbox/variants`: read and replace the service variants in force (variants/catalogue.ts).
 * PUT replaces the whole set and starts reset-after-create's count again; `{ "enabled": [] }` is
 * the default engine.
 */
import type { FastifyInstance } from 'fastify';
import type { EngineContext } from '../context';
import { successBody } from '../api/errors';
import { SERVICE_VARIANT_DESCRIPTIONS, SERVICE_VARIANTS, ServiceVariantsError, serviceVariantsSchema, type ServiceVariants } from '../variants/catalogue';
import { readControlBody } from './body';
import { ControlError } from './guard';

export interface VariantOperations {
  read(): ServiceVariants;
  /** Validates like the control API (ControlError VALIDATION_ERROR naming each field); a list of names is short for `{ enabled }`. */
  set(input: unknown): ServiceVariants;
}

export function variantOperations(ctx: EngineContext): VariantOperations {
  return {
    read: () => ctx.variants.read(),
    set(input) {
      let set: ServiceVariants;
      try {
        set = ctx.variants.set(input);
      } catch (error) {
        if (error instanceof ServiceVariantsError) throw new ControlError('VALIDATION_ERROR', 'The request failed validation.', error.fields, { cause: error });
        throw error;
      }
      ctx.queueEvent({ type: 'extension', topic: 'service.variants', data: set });
      return set;
    },
  };
}

/** The variants in force with the catalogue, so a caller can list what it may switch on. */
function variantsView(variants: ServiceVariants) {
  return { ...variants, known: SERVICE_VARIANTS.map((name) => ({ name, description: SERVICE_VARIANT_DESCRIPTIONS[name] })) };
}

function describe(variants: ServiceVariants): string {
  return variants.enabled.length === 0 ? 'No service variant: the default engine.' : `Service variants on: ${variants.enabled.join(', ')}.`;
}

export function registerVariantRoutes(app: FastifyInstance, variants: VariantOperations): void {
  app.get('/variants', async function readVariants() {
    const current = variants.read();
    return successBody(describe(current), variantsView(current));
  });
  app.put('/variants', async function setVariants(request) {
    const set = variants.set(readControlBody(request, serviceVariantsSchema));
    return successBody(describe(set), variantsView(set));
  });
}
