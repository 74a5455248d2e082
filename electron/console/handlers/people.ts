/**
 * The people:* channels (issue 36 item 3) over the storage port's people (../storage/people-port.ts):
 * the People screen's list and the changes an admin asks and another admin applies. The database
 * refuses everyone else whatever the console does; the console answers with a code the screen
 * words (not an admin, a second admin needed, a field that is wrong) before and after it asks.
 */
import type { Channel } from '../../../shared/api';
import { PeopleRefusal, type PeoplePort } from '../storage/people-port';
import { HandlerFailure, type Context, type HandlerImpls } from './context';

type PeopleChannel = Extract<Channel, `people:${string}`>;

/** A refusal of the people rules as the handler's failure (the field it names, for the form); anything else is left as it is. */
export function peopleFailure(error: unknown): HandlerFailure | null {
  if (!(error instanceof PeopleRefusal)) return null;
  return new HandlerFailure(error.code, error.message, error.field ? { fields: { [error.field]: [error.message] } } : {});
}

export function peopleHandlers(context: Context): HandlerImpls<PeopleChannel> {
  const { deps } = context;

  async function answering<T>(work: (people: PeoplePort) => Promise<T>): Promise<T> {
    const people = deps.storage.people;
    if (!people) throw new HandlerFailure('PEOPLE_UNAVAILABLE', 'People exist on a team workspace only: this desktop keeps its own journal, with no one else to add.');
    try {
      return await work(people);
    } catch (error) {
      throw peopleFailure(error) ?? error;
    }
  }

  return {
    'people:list': () => answering((p) => p.view()),
    'people:add': (input) => answering((p) => p.askAddPerson(input)),
    'people:resetPassword': ({ login, password }) => answering((p) => p.askResetPassword(login, password)),
    'people:disable': ({ login }) => answering((p) => p.askDisableLogin(login)),
    'people:setRole': ({ login, role, member }) => answering((p) => p.askRole(login, role, member)),
    'people:askPolicy': ({ environment, currency, tiers }) => answering((p) => p.askPolicy(environment, currency, tiers)),
    'people:approveChange': ({ id, remark }) => answering((p) => p.approveChange(id, remark ?? null)),
    'people:rejectChange': ({ id, remark }) => answering((p) => p.rejectChange(id, remark ?? null)),
  };
}
