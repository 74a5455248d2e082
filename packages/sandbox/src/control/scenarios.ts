/**
 * `/_sandbox/scenarios`: list, add, read and remove scenarios per transaction (scenarios/store.ts).
 * The console's Sandbox screen calls the same operations in-process (`EngineHandle.scenarios`).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { scenarioInputSchema, type Scenario, type ScenarioSpec } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import { successBody } from '../api/errors';
import { addScenario, getScenario, listScenarios, removeScenario, ScenarioConflict } from '../scenarios/store';
import { readControlBody } from './body';
import { ControlError } from './guard';

/** The scenario operations, for the control API and the console alike. */
export interface ScenarioOperations {
  list(): Scenario[];
  /** Throws ControlError CONFLICT when a scenario already steers the same transactions. */
  add(spec: ScenarioSpec): Scenario;
  /** False when there was none with this id. */
  remove(id: string): boolean;
  /** Removes every scenario; returns how many there were. */
  clear(): number;
}

export function scenarioOperations(ctx: EngineContext): ScenarioOperations {
  return {
    list: () => listScenarios(ctx.db),
    add(spec) {
      try {
        const added = ctx.write(() => addScenario(ctx.db, spec, ctx.clock.nowMicros()));
        ctx.queueEvent({ type: 'extension', topic: 'scenario', data: { added: added.id } });
        return added;
      } catch (error) {
        if (error instanceof ScenarioConflict) throw new ControlError('CONFLICT', error.message, [], { cause: error });
        throw error;
      }
    },
    remove(id) {
      const removed = ctx.write(() => removeScenario(ctx.db, id));
      if (removed) ctx.queueEvent({ type: 'extension', topic: 'scenario', data: { removed: id } });
      return removed;
    },
    clear() {
      const count = ctx.write(() => ctx.db.prepare('DELETE FROM sandbox_scenarios').run().changes);
      ctx.queueEvent({ type: 'extension', topic: 'scenario', data: { cleared: count } });
      return count;
    },
  };
}

function scenarioId(request: { params: unknown }): string {
  return (request.params as { id: string }).id;
}

export function registerScenarioRoutes(app: FastifyInstance, ctx: EngineContext, scenarios: ScenarioOperations): void {
  app.get('/scenarios', async function listScenarioRoute() {
    const list = scenarios.list();
    return successBody(`Scenarios: ${list.length}.`, { scenarios: list });
  });
  app.post('/scenarios', async function addScenarioRoute(request, reply) {
    const added = scenarios.add(readControlBody(request, scenarioInputSchema));
    return reply.code(201).send(successBody(`Scenario ${added.id} added: ${added.match.field} ${added.match.value} will end ${added.status}.`, added));
  });
  app.get('/scenarios/:id', async function readScenarioRoute(request) {
    const found = getScenario(ctx.db, scenarioId(request));
    if (!found) throw new ControlError('NOT_FOUND', `No scenario ${scenarioId(request)}.`);
    return successBody('Scenario retrieved.', found);
  });
  app.delete('/scenarios/:id', async function removeScenarioRoute(request) {
    readControlBody(request, z.strictObject({}));
    if (!scenarios.remove(scenarioId(request))) throw new ControlError('NOT_FOUND', `No scenario ${scenarioId(request)}.`);
    return successBody(`Scenario ${scenarioId(request)} removed.`, { removed: scenarioId(request) });
  });
  app.delete('/scenarios', async function clearScenariosRoute(request) {
    readControlBody(request, z.strictObject({}));
    const count = scenarios.clear();
    return successBody(`Scenarios removed: ${count}.`, { removed: count });
  });
}
