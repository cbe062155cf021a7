/**
 * Admission of queries to an index on a SPARQL server (src/index/admission.ts): the limits at once
 * and per agent, and a query that gives up while it waits takes no place afterwards (before, it was
 * admitted once a place freed, and held it for ever: after `maxQueries` such queries, none ran).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Admission } from '../src/index/admission.js';

const never = new AbortController().signal;
const soon = () => AbortSignal.timeout(2000);

describe('query admission', () => {
  it('admits at most max at once and perHolder of one agent, the others first', async () => {
    const a = new Admission(3, 2);
    await a.acquire('x', never);
    await a.acquire('x', never);
    let third = false;
    const xThird = a.acquire('x', never).then(() => (third = true));
    await a.acquire('y', soon()); // another agent passes the waiting x
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(third, false, 'x holds its two');
    a.release('y');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(third, false, 'still two of x running');
    a.release('x');
    await xThird;
  });

  it('forgets a query that gave up while waiting: the next one is admitted when a place frees', async () => {
    const a = new Admission(1, 1);
    await a.acquire('runaway', never);
    for (let i = 0; i < 3; i++) {
      const gaveUp = new AbortController();
      const waiting = a.acquire(`impatient-${i}`, gaveUp.signal);
      gaveUp.abort(new Error('its time is up'));
      await assert.rejects(waiting, /its time is up/);
    }
    a.release('runaway');
    await a.acquire('next', soon()); // before: admitted to the first that gave up, then nobody
    a.release('next');
    await a.acquire('after', soon());
  });
});
