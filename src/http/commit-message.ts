/**
 * The `Lodestone-Message` request header: a writer's words on why it writes, which become the body
 * of the write's commit message (DESIGN "Commits": the first line stays `<METHOD> <document URL>`).
 * The header is percent-encoded UTF-8 (HTTP field values are ASCII, RFC 9110 §5.5); decoded, it
 * holds at most MAX_MESSAGE characters and no control character but the newline.
 */
import { LodestoneError } from '../errors.js';
import type { Context } from './state.js';

export const MESSAGE_HEADER = 'Lodestone-Message';

/** The most characters a message may hold, decoded. */
export const MAX_MESSAGE = 1000;

// C0 and C1 controls and DEL, the newline apart (a message may have paragraphs)
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/u;

/** The message a header value carries, trimmed; undefined when there is none. A malformed one is a BadRequest. */
export function decodeMessage(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  let text: string;
  try {
    text = decodeURIComponent(header.trim());
  } catch {
    throw new LodestoneError('BadRequest', `the ${MESSAGE_HEADER} header is not percent-encoded UTF-8 (encode it as encodeURIComponent does)`);
  }
  text = text.trim();
  if (CONTROL.test(text)) throw new LodestoneError('BadRequest', `the ${MESSAGE_HEADER} header holds a control character; only a newline (%0A) may break it`);
  if ([...text].length > MAX_MESSAGE) throw new LodestoneError('BadRequest', `the ${MESSAGE_HEADER} header holds ${[...text].length} characters decoded; a message holds at most ${MAX_MESSAGE}`);
  return text === '' ? undefined : text;
}

/** The request's commit message, checked before anything is read or written. */
export function requestMessage(ctx: Context): string | undefined {
  return decodeMessage(ctx.get(MESSAGE_HEADER) || undefined);
}
