import { describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../shared/events';

interface Events {
  status: { id: string };
  tick: void;
}

describe('TypedEmitter', () => {
  it('hands each event to its own listeners, in the order they were added, until they unsubscribe', () => {
    const emitter = new TypedEmitter<Events>();
    const heard: string[] = [];
    const first = emitter.on('status', ({ id }) => heard.push(`first ${id}`));
    emitter.on('status', ({ id }) => heard.push(`second ${id}`));
    emitter.on('tick', () => heard.push('tick'));
    emitter.emit('status', { id: 'a' });
    first();
    emitter.emit('status', { id: 'b' });
    emitter.emit('tick', undefined);
    expect(heard).toEqual(['first a', 'second a', 'second b', 'tick']);
    expect(emitter.events()).toEqual(['status', 'tick']);
  });

  it('a listener added or removed while an event is handed out takes effect from the next one', () => {
    const emitter = new TypedEmitter<Events>();
    const heard: string[] = [];
    let second: () => void = () => undefined;
    emitter.on('tick', () => {
      heard.push('first');
      second();
      emitter.on('tick', () => heard.push('late'));
    });
    second = emitter.on('tick', () => heard.push('second'));
    emitter.emit('tick', undefined);
    expect(heard).toEqual(['first', 'second']);
  });

  it('a function added twice hears an event once, and one unsubscribe removes it', () => {
    const emitter = new TypedEmitter<Events>();
    let heard = 0;
    const listener = () => {
      heard += 1;
    };
    const off = emitter.on('tick', listener);
    emitter.on('tick', listener);
    emitter.emit('tick', undefined);
    off();
    emitter.emit('tick', undefined);
    expect(heard).toBe(1);
  });

  it('with onListenerError, a throwing listener is reported and the others still run', () => {
    const reported: [unknown, keyof Events][] = [];
    const emitter = new TypedEmitter<Events>({ onListenerError: (error, event) => reported.push([error, event]) });
    const heard: string[] = [];
    const boom = new Error('boom');
    emitter.on('status', () => {
      throw boom;
    });
    emitter.on('status', ({ id }) => heard.push(id));
    emitter.emit('status', { id: 'a' });
    expect(heard).toEqual(['a']);
    expect(reported).toEqual([[boom, 'status']]);
  });

  it('without onListenerError, the error reaches the caller of emit', () => {
    const emitter = new TypedEmitter<Events>();
    emitter.on('tick', () => {
      throw new Error('boom');
    });
    expect(() => emitter.emit('tick', undefined)).toThrow('boom');
  });
});
