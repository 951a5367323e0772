// The public model list (GET /v1/models, no credential): ids for the agent's model field, and the prices
// Conduit charges, per token as decimal strings, for the price table. Asked once per page load; a failure
// is asked again by the next component that needs it.
export interface ListedModel {
  id: string;
  /** `audio_second`: a transcription model's price a second of audio (its tokens are then not charged). */
  pricing?: { prompt?: string; completion?: string; audio_second?: string };
}

let catalog: Promise<ListedModel[]> | undefined;

export function loadModels(): Promise<ListedModel[]> {
  catalog ??= fetch('/v1/models')
    .then(async (response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as { data?: ListedModel[] };
      return [...(body.data ?? [])].sort((a, b) => a.id.localeCompare(b.id));
    })
    .catch((error: unknown) => {
      catalog = undefined;
      throw error;
    });
  return catalog;
}
