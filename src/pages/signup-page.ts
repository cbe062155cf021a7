/** The signup page (`<admin base>sign%20up`): a name, an e-mail address and the password that protects the certificate it answers with. */
import { html, type Html } from './html.js';
import { page, type Frame } from './layout.js';
import { FORM } from '../rdf/media-types.js';

export function signupPage(frame: Omit<Frame, 'title' | 'kind'>, action: string): Html {
  const { t } = frame;
  const body = html`<h1>${t.signUp}</h1>
<form class="signup" method="post" action="${action}" enctype="${FORM}">
<p><label for="signup-name">${t.signupName}</label> <input id="signup-name" name="name" required maxlength="200" autocomplete="name"></p>
<p><label for="signup-email">${t.signupEmail}</label> <input id="signup-email" name="email" type="email" required autocomplete="email"></p>
<p><label for="signup-password">${t.signupPassword}</label> <input id="signup-password" name="password" type="password" required minlength="8" autocomplete="new-password"></p>
<p><button type="submit">${t.signupSubmit}</button></p>
</form>
<p>${t.signupHelp}</p>`;
  return page({ ...frame, title: t.signUp, kind: 'page-signup' }, body);
}
