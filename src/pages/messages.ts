/**
 * The words of the web interface, in English and Spanish (messages-en.ts, messages-es.ts), and the
 * choice between them: a `lang` query parameter (the language switch's links) wins, then
 * `Accept-Language` (RFC 9110 §12.5.4), then English.
 */
import Negotiator from 'negotiator';
import { memo } from '../util/memo.js';
import { en, type Messages } from './messages-en.js';
import { es } from './messages-es.js';

export type { Messages };

export const LANGUAGES = ['en', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];
const catalogs: Record<Language, Messages> = { en, es };

export function messages(language: Language): Messages {
  return catalogs[language];
}

/** The language of a page: `?lang=` when it names one we have, else the best of Accept-Language, else English. */
export function pageLanguage(acceptLanguage: string | undefined, asked: string | null | undefined): Language {
  if (asked && (LANGUAGES as readonly string[]).includes(asked)) return asked as Language;
  return acceptLanguage ? negotiatedLanguage(acceptLanguage) : 'en';
}

/** The best of LANGUAGES for an Accept-Language field (a browser sends the same one every time: negotiated once). */
const negotiatedLanguage = memo((acceptLanguage: string): Language => (new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language([...LANGUAGES]) as Language | undefined) ?? 'en');
