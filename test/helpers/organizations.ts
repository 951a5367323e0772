// Organisations in tests: an app with the suite's SMTP server (invitations are mails) and the /v1 fake
// upstream, an organisation created over REST, and members who join by following their mailed link.
import { afterAll, beforeAll } from 'bun:test';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import type { FakeUpstream } from '../fakes/upstream';
import { registerUser, type TestApp } from './app';
import { useGatewayApp } from './gateway';
import { okBody, rest, type RestInput } from './rest';

export const PUBLIC_BASE_URL = 'https://conduit.example';
const INVITE_LINK = /https:\/\/conduit\.example\/app#\/invite\/([A-Za-z0-9_-]{43})/;

export interface OrganizationsSetup {
  app: TestApp;
  smtp: FakeSmtp;
  /** The /v1 upstream the app calls (its key: 'upstream-secret'), for a second instance to call too. */
  fake: FakeUpstream;
}

/** Starts the SMTP server, then the gateway app that mails through it; `ready` gets them and the fake upstream. */
export function useOrganizationsApp(ready: (setup: OrganizationsSetup) => void, env: Record<string, string> = {}): void {
  let smtp: FakeSmtp | undefined;
  const appEnv: Record<string, string> = { PUBLIC_BASE_URL, ...env };
  beforeAll(async () => {
    smtp = await startFakeSmtp();
    appEnv.SMTP_URL = smtp.url;
    appEnv.SMTP_FROM = 'Conduit <no-reply@conduit.example>';
  });
  useGatewayApp({ env: appEnv, ready: ({ app, fake }) => ready({ app, smtp: smtp!, fake }) });
  afterAll(async () => {
    await smtp?.close();
  });
}

let innCounter = 0;
/** Valid requisites of a made-up company (a 10-digit ИНН with its КПП). */
export function companyInput(name = 'ООО «Ромашка»'): RestInput<'organizations', 'create'> {
  innCounter += 1;
  return {
    name,
    inn: String(7700000000 + innCounter),
    kpp: '770001001',
    ogrn: '1027700132195',
    address: 'г. Москва, ул. Тверская, д. 1',
  };
}

/** A registered person who creates an organisation and owns it. */
export async function newOrganization(app: TestApp, name?: string) {
  const owner = await registerUser(app.url);
  const org = okBody(await rest(app.url, owner.token).organizations.create(companyInput(name)));
  return { owner, org };
}

/** The invitation link's token from the newest mail to `email` after `seen` earlier ones. */
export async function mailedInviteToken(smtp: FakeSmtp, email: string, seen = 0): Promise<string> {
  const mail = await smtp.waitFor(email, seen);
  const match = INVITE_LINK.exec(mail.text);
  if (!match) throw new Error(`no invitation link in: ${mail.text}`);
  return match[1]!;
}

/** Invites a new person with `role`, follows the mailed link and accepts: the member's login and id. */
export async function joinAs(
  setup: Pick<OrganizationsSetup, 'app' | 'smtp'>,
  inviterToken: string,
  organizationId: string,
  role: 'owner' | 'admin' | 'developer' | 'accountant',
  spendLimit?: number | null,
) {
  const person = await registerUser(setup.app.url);
  const seen = setup.smtp.messages.filter((m) => m.to.includes(person.email)).length;
  okBody(await rest(setup.app.url, inviterToken).organizations.invite({ id: organizationId, email: person.email, role, spendLimit }));
  const token = await mailedInviteToken(setup.smtp, person.email, seen);
  okBody(await rest(setup.app.url, person.token).organizations.acceptInvite({ token }));
  return person;
}

/** The REST client acting in the organisation (X-Conduit-Organization) with a person's JWT. */
export const inOrganization = (app: TestApp, token: string, organizationId: string) => rest(app.url, token, { 'x-conduit-organization': organizationId });
