/**
 * RateLimit and addressKey (src/util/rate-limit.ts), with a clock of the test's: a limit is spent at
 * once or spread out and refills evenly; a refusal says how long to wait and spends nothing; memory
 * stays bounded however many keys (addresses) come; an IPv6 /64 is one client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimit, addressKey } from '../src/util/rate-limit.js';

describe('RateLimit', () => {
  it('allows `limit` uses at once, then one more each window / limit; a refusal says how long and spends nothing', () => {
    let now = 1_000_000;
    const rate = new RateLimit({ limit: 5, windowMs: 600_000, now: () => now });
    for (let i = 0; i < 5; i++) assert.equal(rate.take('a'), 0);
    assert.equal(rate.take('a'), 120_000, 'the sixth waits for a fifth of the window');
    now += 60_000;
    assert.equal(rate.take('a'), 60_000, 'refused again: the refusal spent nothing');
    now += 60_000;
    assert.equal(rate.take('a'), 0);
    assert.equal(rate.take('b'), 0, 'another key has its own budget');
    rate.giveBack('a');
    assert.equal(rate.take('a'), 0, 'a use given back is there again');
    now += 600_000;
    for (let i = 0; i < 5; i++) assert.equal(rate.take('a'), 0, 'a full window later the whole budget is back');
  });

  it('remembers at most maxKeys keys, however many addresses come, forgetting the longest unused first', () => {
    let now = 0;
    const rate = new RateLimit({ limit: 1, windowMs: 60_000, maxKeys: 100, now: () => now });
    for (let i = 0; i < 10_000; i++) {
      now += 1;
      assert.equal(rate.take(`10.0.${i >> 8}.${i & 255}`), 0);
      assert.ok(rate.size <= 100, `${rate.size} keys`);
    }
    assert.ok(rate.take('10.0.39.15') > 0, 'the key used last is still limited');
    now += 60_000;
    rate.take('another');
    assert.equal(rate.size, 1, 'keys whose budget is full again are forgotten as others come');
  });
});

describe('addressKey', () => {
  it('keeps IPv4 (mapped or not) as it is and takes IPv6 by its /64', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
  });
});
