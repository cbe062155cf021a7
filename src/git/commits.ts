/**
 * Git commit objects: the tree, parents, author and committer headers and the message, encoded
 * and decoded. Pure: no I/O.
 */
import { LodestoneError } from '../errors.js';
import { encodeObject, type GitObject } from './objects.js';

export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Always '+0000' for Lodestone's own commits (DESIGN.md, "Commits"). */
  timezone: string;
}

export interface Commit {
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
}

/** A name or e-mail address as a commit records it. */
export function sanitise(value: string): string {
  // git refuses '<', '>' and newlines in identities
  return value.replace(/[<>\n\r\0]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
}

function formatSignature(sig: Signature): string {
  return `${sanitise(sig.name)} <${sanitise(sig.email)}> ${sig.timestamp} ${sig.timezone}`;
}

export function commitObject(commit: Commit): GitObject {
  let text = `tree ${commit.tree}\n`;
  for (const parent of commit.parents) text += `parent ${parent}\n`;
  text += `author ${formatSignature(commit.author)}\ncommitter ${formatSignature(commit.committer)}\n\n${commit.message}`;
  return encodeObject('commit', Buffer.from(text, 'utf8'));
}

function parseSignature(text: string): Signature {
  const match = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(text);
  if (!match) throw new LodestoneError('Corrupt', `malformed signature "${text}"`);
  return { name: match[1]!, email: match[2]!, timestamp: Number(match[3]), timezone: match[4]! };
}

export function parseCommit(content: Buffer): Commit {
  const text = content.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = (split < 0 ? text : text.slice(0, split)).split('\n');
  const commit: Partial<Commit> & { parents: string[] } = { parents: [] };
  for (const line of headers) {
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === 'tree') commit.tree = value;
    else if (key === 'parent') commit.parents.push(value);
    else if (key === 'author') commit.author = parseSignature(value);
    else if (key === 'committer') commit.committer = parseSignature(value);
  }
  if (!commit.tree || !commit.author || !commit.committer) throw new LodestoneError('Corrupt', 'malformed commit object');
  return { ...commit, message: split < 0 ? '' : text.slice(split + 2) } as Commit;
}
