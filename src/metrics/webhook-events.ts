// Payment notifications (a shop's order payments, balance top-ups) as webhook events in the metrics.
import type { Metrics } from './registry';

export type WebhookEventCounter = Pick<Metrics, 'webhookEvent'>;

/** Answered 2xx is handled; anything else, or a throw, failed. */
export async function countedPaymentEvent(metrics: WebhookEventCounter, answer: Promise<Response>): Promise<Response> {
  try {
    const response = await answer;
    metrics.webhookEvent('payments', response.status < 400 ? 'handled' : 'failed');
    return response;
  } catch (error) {
    metrics.webhookEvent('payments', 'failed');
    throw error;
  }
}
