/**
 * `lodestone serve` in a child process for the stalls section, with the main thread's event-loop
 * delay recorded (perf_hooks.monitorEventLoopDelay): `reset` on standard input starts a period,
 * `report` prints its max and p99 in milliseconds as one JSON line.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { serveConfig } from '../src/config.js';
import { serve } from '../src/server.js';

const config = serveConfig(process.argv.slice(2));
if (config === 'help') throw new Error('unexpected --help');
await serve(config, (line) => process.stdout.write(line + '\n'));
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'reset') delay.reset();
  if (line === 'report') process.stdout.write(`stall ${JSON.stringify({ max: delay.max / 1e6, p99: delay.percentile(99) / 1e6 })}\n`);
}
