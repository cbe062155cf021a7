/** Which history question a document URL's query asks (SPEC §3, §9.1): a version, the TimeMap, the TimeGate, a diff, a restore (of a document, or with `recursive` of a container and all under it), a revert, blame, a document on a branch, a branch's change request and its comments; none for the current document. */

export type HistoryQuery =
  | { kind: 'version'; sha: string }
  | { kind: 'timemap' }
  | { kind: 'timegate' }
  | { kind: 'diff'; from: string; to: string | undefined }
  | { kind: 'restore'; sha: string }
  | { kind: 'revert'; sha: string }
  | { kind: 'blame' }
  | { kind: 'branch'; name: string }
  | { kind: 'changes'; name: string }
  | { kind: 'comments'; name: string };

export type HistoryKind = HistoryQuery['kind'];

export function historyQuery(querystring: string): HistoryQuery | undefined {
  if (querystring === '') return undefined;
  const query = new URLSearchParams(querystring);
  // issue 30: a document on a branch, or (with `changes`) the branch's change request, or (with `comments`) its comments
  if (query.has('branch')) return { kind: query.has('changes') ? 'changes' : query.has('comments') ? 'comments' : 'branch', name: query.get('branch') ?? '' };
  if (query.has('version')) return { kind: 'version', sha: query.get('version') ?? '' };
  if (query.has('timemap')) return { kind: 'timemap' };
  if (query.has('timegate')) return { kind: 'timegate' };
  if (query.has('diff')) return { kind: 'diff', from: query.get('diff') ?? '', to: query.get('to') ?? undefined };
  if (query.has('blame')) return { kind: 'blame' };
  if (query.has('restore')) return { kind: 'restore', sha: query.get('restore') ?? '' };
  if (query.has('revert')) return { kind: 'revert', sha: query.get('revert') ?? '' };
  return undefined;
}
