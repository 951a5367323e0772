// The model list (GET /v1/models): ids for the agent's model field, and the prices Conduit charges, per
// token as decimal strings, for the price table. The list needs no credential, but with the session's JWT
// it is the signed-in account's own (issue 45: its price group's prices and only the models the group may
// call; with the active organisation, the organisation's). Asked once per page load and account; a
// failure is asked again by the next component that needs it.
import { organizationHeaderFor } from '../app/organization';
import { currentSession } from '../app/session';

export interface ListedModel {
  id: string;
  /** `audio_second`: a transcription model's price a second of audio (its tokens are then not charged). */
  pricing?: { prompt?: string; completion?: string; audio_second?: string };
}

const catalogs = new Map<string, Promise<ListedModel[]>>();

/** `forOrganization`: the active organisation's list (the account that pays); false: the person's own (their agents). */
export function loadModels({ forOrganization = true }: { forOrganization?: boolean } = {}): Promise<ListedModel[]> {
  const token = currentSession()?.token;
  const headers: Record<string, string> = {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(forOrganization ? organizationHeaderFor('/v1/models') : {}),
  };
  const key = JSON.stringify(headers);
  let catalog = catalogs.get(key);
  if (!catalog) {
    catalog = fetch('/v1/models', { headers })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const body = (await response.json()) as { data?: ListedModel[] };
        return [...(body.data ?? [])].sort((a, b) => a.id.localeCompare(b.id));
      })
      .catch((error: unknown) => {
        catalogs.delete(key);
        throw error;
      });
    catalogs.set(key, catalog);
  }
  return catalog;
}
