/**
 * The frame of every page: head (title, the server's own styles and scripts), a header that says
 * who is browsing and how to log in or out, the language switch, breadcrumbs, the page's content
 * and a footer. Scripts are deferred files from `<base>static/`: there is no inline script or
 * style, so the Content-Security-Policy can forbid both. A page loads only lodestone.js and its
 * styles; the code editor and the chart library are loaded by it when they are used (the
 * elements that need them name them in `data-scripts` and `data-styles`).
 */
import { assetName } from './assets.js';
import { html, webUrl, type Html } from './html.js';
import { LANGUAGES, type Language, type Messages } from './messages.js';
import { SVG } from '../rdf/media-types.js';

/** Who is browsing, and how they may log in (the header's part of a page). */
export interface Visitor {
  /** The agent's WebID, or undefined for anonymous. */
  webId: string | undefined;
  /** A name for the agent (its foaf:name), when one is known. */
  name?: string;
  /** The admin dataspace's base (login, logout and signup live there). */
  adminBase: string;
  /** The OpenID Connect providers one can log in with. */
  providers: readonly string[];
  /** Whether the agent was found by a client certificate, which the browser holds and sends: no logout of the server's ends it. */
  certificate?: boolean;
  /** Whether signing up is open. */
  signup: boolean;
  /** Whether the agent may read the admin dataspace (at `adminBase`): the navigation links it then. */
  admin?: boolean;
}

export interface Frame {
  language: Language;
  t: Messages;
  title: string;
  /** The dataspace's base URL: links to its home, its query page and its static files. */
  base: string;
  /** The request's URL with its query (the language switch keeps the query). */
  url: string;
  visitor: Visitor;
  /** Whether the dataspace has a sitemap.xml (SPEC §4.7: none when nothing is public, none in an admin dataspace): the footer links it then only. */
  sitemap?: boolean;
  /** From the home page down to this one; the last is the page itself. */
  breadcrumbs?: readonly { label: string; href: string }[];
  /** Alternate representations (`<link rel="alternate">`). */
  alternates?: readonly { type: string; href: string }[];
  /** A banner above the content (a memento's date). */
  banner?: Html;
  /** A class on <body>, for page-specific styles. */
  kind: string;
}

const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', es: 'Español' };

/** The URL with its `lang` query parameter set to `language`. */
function withLanguage(url: string, language: Language): string {
  const at = new URL(url);
  at.searchParams.set('lang', language);
  return at.pathname + at.search;
}

function who(frame: Frame): Html {
  const { t, visitor } = frame;
  if (visitor.webId) {
    const name = visitor.name ?? visitor.webId;
    return html`<p class="who">${t.signedInAs} ${webUrl(visitor.webId) ? html`<a href="${visitor.webId}">${name}</a>` : name}</p>
${visitor.certificate
      ? html`<details class="logout-certificate"><summary>${t.logOut}</summary><p>${t.certificateLogout}</p></details>`
      : html`<form method="post" action="${visitor.adminBase}oauth2/logout" class="logout"><button type="submit">${t.logOut}</button></form>`}`;
  }
  return html`<p class="who">${t.notSignedIn} (${t.anonymous})</p>
<details class="login"><summary>${t.logIn}</summary>
<ul>${visitor.providers.map((p) => html`<li><a href="${visitor.adminBase}oauth2/login/${p}">${t.logInWith} ${p}</a></li>`)}
${visitor.signup && html`<li><a href="${visitor.adminBase}sign%20up">${t.signUp}</a></li>`}</ul>
<p>${t.certificateHelp}</p>
</details>`;
}

export function page(frame: Frame, content: Html): Html {
  const { t, base } = frame;
  const asset = (name: string) => `${base}static/${assetName(name)}`;
  const crumbs = frame.breadcrumbs ?? [];
  return html`<!doctype html>
<html lang="${frame.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · ${t.siteName}</title>
<link rel="stylesheet" href="${asset('lodestone.css')}">
<link rel="icon" href="${asset('favicon.svg')}" type="${SVG}">
${(frame.alternates ?? []).map((a) => html`<link rel="alternate" type="${a.type}" href="${a.href}">\n`)}<script src="${asset('lodestone.js')}" defer></script>
</head>
<body class="${frame.kind}">
<a class="skip" href="#main">${t.skipToContent}</a>
<header class="site">
<a class="brand" href="${base}">${t.siteName}</a>
<nav class="site-nav" aria-label="${t.siteName}"><a href="${base}">${t.home}</a> <a href="${base}sparql">${t.query}</a>${frame.visitor.admin && html` <a href="${frame.visitor.adminBase}">${t.administration}</a>`}</nav>
<div class="visitor">${who(frame)}</div>
<nav class="languages" aria-label="${t.language}"><ul>${LANGUAGES.map(
    (l) => html`<li><a href="${withLanguage(frame.url, l)}" hreflang="${l}" lang="${l}"${l === frame.language ? html` aria-current="true"` : ''}>${LANGUAGE_NAMES[l]}</a></li>`,
  )}</ul></nav>
</header>
${crumbs.length > 0 && html`<nav class="breadcrumbs" aria-label="${t.breadcrumbs}"><ol>${crumbs.map((c, i) => html`<li>${i === crumbs.length - 1 ? html`<a href="${c.href}" aria-current="page">${c.label}</a>` : html`<a href="${c.href}">${c.label}</a>`}</li>`)}</ol></nav>`}
<main id="main">
${frame.banner}
${content}
</main>
<footer class="site"><p>${t.siteName} · <a href="${base}sparql">SPARQL</a>${frame.sitemap && html` · <a href="${base}sitemap.xml">sitemap.xml</a>`}</p></footer>
</body>
</html>
`;
}
