/**
 * Code-split parts without Suspense (renderer/src/chunks.ts): asked for once, drawn as soon as they
 * are in, asked for again after a failure, and a failure is thrown in render (never a blank screen).
 * A part that arrives after the render that found it missing, before that render's effect ran, is
 * still drawn (issue 28: the opening screen's chunk, asked for at start, arrived in that window on
 * a busy machine and the screen stayed on "Opening the screen" for good).
 */
import { describe, expect, it } from 'vitest';
import { Component, useLayoutEffect, type ReactNode } from 'react';
import { render, screen } from '@testing-library/react';
import { chunk, useChunk, type Chunk } from '../../renderer/src/chunks';

function Part({ part }: { part: Chunk<{ text: string }> }) {
  const loaded = useChunk(part);
  return <p>{loaded ? loaded.text : 'waiting'}</p>;
}

class Boundary extends Component<{ children: ReactNode }, { error: string | null }> {
  override state: { error: string | null } = { error: null };
  static getDerivedStateFromError(error: Error) {
    return { error: error.message };
  }
  override render() {
    return this.state.error ? <p>failed: {this.state.error}</p> : this.props.children;
  }
}

describe('chunks', () => {
  it('imports once however often it is asked for, and draws the part as soon as it is in', async () => {
    let imports = 0;
    const part = chunk(async () => {
      imports += 1;
      return { text: 'drawn' };
    });
    const first = part.load();
    expect(part.load()).toBe(first);
    render(<Part part={part} />);
    expect(await screen.findByText('drawn')).toBeTruthy();
    expect(imports).toBe(1);
    expect(part.loaded()).toEqual({ text: 'drawn' });
  });

  it('throws a failed import in render, and imports again when asked after the failure', async () => {
    let imports = 0;
    const part = chunk(async () => {
      imports += 1;
      if (imports === 1) throw new Error('chunk gone');
      return { text: 'second try' };
    });
    render(
      <Boundary>
        <Part part={part} />
      </Boundary>,
    );
    expect(await screen.findByText('failed: chunk gone')).toBeTruthy();
    expect(await part.load()).toEqual({ text: 'second try' });
    expect(imports).toBe(2);
  });

  it('draws a part that arrived between the render that found it missing and that render\'s effect', async () => {
    const module = { text: 'arrived meanwhile' };
    let arrived = false;
    // The import's answer comes in after React rendered the placeholder and before its passive
    // effect runs: a layout effect of a later sibling runs in exactly that window.
    const part: Chunk<{ text: string }> = { load: () => Promise.resolve(module), loaded: () => (arrived ? module : null) };
    function Arrives() {
      useLayoutEffect(() => {
        arrived = true;
      }, []);
      return null;
    }
    render(
      <>
        <Part part={part} />
        <Arrives />
      </>,
    );
    expect(await screen.findByText('arrived meanwhile')).toBeTruthy();
  });
});
