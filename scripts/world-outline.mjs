/**
 * Writes static/world-110m.svg, the land outline the container map draws its points on: Natural
 * Earth's 1:110m land (public domain) from the world-atlas package, decoded with topojson-client and
 * projected equirectangularly into a 360 × 180 box (x = longitude + 180, y = 90 − latitude), to 0.1°.
 * Run once, outside the project's dependencies (WORLD_MODULES: a folder where both are installed):
 *   (mkdir -p /tmp/world && cd /tmp/world && npm install world-atlas@2.0.2 topojson-client@3.1.0)
 *   WORLD_MODULES=/tmp/world node scripts/world-outline.mjs
 */
/* global process, URL, console */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(`${process.env.WORLD_MODULES ?? process.cwd()}/`);
const { feature } = require('topojson-client');
const land = JSON.parse(readFileSync(require.resolve('world-atlas/land-110m.json'), 'utf8'));
const rings = feature(land, land.objects.land).features.flatMap((f) => (f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates)).flat();
const round = (n) => Math.round(n * 10) / 10;
let path = '';
for (const ring of rings) {
  let previous;
  for (const [lon, lat] of ring) {
    const x = round(lon + 180);
    const y = round(90 - lat);
    // a ring that crosses the antimeridian is broken there, not drawn across the map
    path += previous === undefined || Math.abs(lon - previous) > 180 ? `M${x} ${y}` : `L${x} ${y}`;
    previous = lon;
  }
  path += 'Z';
}
const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 180"><!-- Natural Earth 1:110m land (public domain), via world-atlas 2.0.2 --><rect width="360" height="180" fill="#dcebf5"/><path d="${path}" fill="#f4f1e8" stroke="#9a9a8a" stroke-width="0.2"/></svg>\n`;
writeFileSync(new URL('../static/world-110m.svg', import.meta.url), svg);
console.log(`static/world-110m.svg: ${svg.length} bytes`);
