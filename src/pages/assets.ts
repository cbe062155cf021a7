/**
 * The scripts, styles and icon pages use, served by the server itself under `<base>static/` (no CDN: pages
 * work offline and under a strict Content-Security-Policy). Each is named by a digest of its bytes
 * (`lodestone.3f2a9c1d.css`), so it can be cached for a year and a new version is a new URL. They
 * are read once, at first use: the project's own (static/) and the bundled libraries (CodeMirror 5
 * with its Turtle and SPARQL modes, Chart.js, N3.js), straight from their npm packages.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CSS, ICON, JAVASCRIPT, SVG } from '../rdf/media-types.js';

export interface Asset {
  /** The URL path segment under `static/`, with the digest. */
  name: string;
  type: string;
  bytes: Buffer;
}

const require = createRequire(import.meta.url);
const own = (file: string) => fileURLToPath(new URL(`../../static/${file}`, import.meta.url));

/** Every asset by its plain name, and where its bytes come from. */
const SOURCES: Record<string, () => string> = {
  'lodestone.css': () => own('lodestone.css'),
  'lodestone.js': () => own('lodestone.js'),
  'forms.js': () => own('forms.js'),
  // the container map's land outline (Natural Earth 1:110m, public domain; scripts/world-outline.mjs made it)
  'world-110m.svg': () => own('world-110m.svg'),
  'favicon.svg': () => own('favicon.svg'),
  'favicon.ico': () => own('favicon.ico'),
  'codemirror.css': () => require.resolve('codemirror/lib/codemirror.css'),
  'codemirror.js': () => require.resolve('codemirror/lib/codemirror.js'),
  'codemirror-turtle.js': () => require.resolve('codemirror/mode/turtle/turtle.js'),
  'codemirror-sparql.js': () => require.resolve('codemirror/mode/sparql/sparql.js'),
  // N3.js's browser build (window.N3), for the conflict view's comparison of two Turtle texts
  'n3.js': () => require.resolve('n3/browser/n3.min.js'),
  'conflict.js': () => own('conflict.js'),
  'change-request.js': () => own('change-request.js'),
  // the UMD build (one file, window.Chart), which the package's exports do not name: found beside its main file
  'chart.js': () => join(dirname(require.resolve('chart.js')), 'chart.umd.min.js'),
};

export type AssetName = keyof typeof SOURCES & string;

const TYPES: Record<string, string> = { css: `${CSS}; charset=utf-8`, js: `${JAVASCRIPT}; charset=utf-8`, svg: SVG, ico: ICON };

let table: { byPlain: Map<string, Asset>; byName: Map<string, Asset> } | undefined;

function load(): NonNullable<typeof table> {
  if (table) return table;
  const byPlain = new Map<string, Asset>();
  const byName = new Map<string, Asset>();
  for (const [plain, source] of Object.entries(SOURCES)) {
    const bytes = readFileSync(source());
    const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 10);
    const dot = plain.lastIndexOf('.');
    const asset = { name: `${plain.slice(0, dot)}.${digest}${plain.slice(dot)}`, type: TYPES[plain.slice(dot + 1)]!, bytes };
    byPlain.set(plain, asset);
    byName.set(asset.name, asset);
  }
  table = { byPlain, byName };
  return table;
}

/** The digest-named path segment of an asset, for a page's `<script src>` or `<link href>`. */
export function assetName(plain: string): string {
  return assetByPlainName(plain).name;
}

/** The URLs of assets under the dataspace at `base`, space-separated (for a `data-scripts` attribute the page script loads on demand). */
export function assetUrls(base: string, ...plain: string[]): string {
  return plain.map((name) => `${base}static/${assetName(name)}`).join(' ');
}

/** An asset by its plain name, for the one served under a fixed name too (`/favicon.ico`, which browsers ask for). */
export function assetByPlainName(plain: AssetName): Asset {
  const asset = load().byPlain.get(plain);
  if (!asset) throw new Error(`there is no asset ${plain}`);
  return asset;
}

/** The asset served at `static/<name>`, if there is one. */
export function assetNamed(name: string): Asset | undefined {
  return load().byName.get(name);
}
