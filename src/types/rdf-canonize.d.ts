declare module 'rdf-canonize' {
  import type { Quad } from 'n3';
  export interface CanonizeOptions {
    algorithm: 'RDFC-1.0';
    canonicalIdMap?: Map<string, string>;
    maxWorkFactor?: number;
    maxDeepIterations?: number;
    signal?: AbortSignal;
  }
  export function canonize(input: readonly Quad[], options: CanonizeOptions): Promise<string>;
}
