// The operator's support contact (SUPPORT_CONTACT, GET /api/support, no login needed): an e-mail becomes
// a mailto: link, a web address a link, anything else (a phone, a messenger name) plain text.
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../app/trpc';

/** Asked once per page load: the contact is fixed while the server runs. */
export function useSupportContact(): string | null | undefined {
  const trpc = useTRPC();
  return useQuery(trpc.support.contact.queryOptions(undefined, { staleTime: Infinity, gcTime: Infinity })).data?.contact;
}

export function contactHref(text: string): string | null {
  if (/^https?:\/\/\S+$/i.test(text)) return text;
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) return `mailto:${text}`;
  if (/^\+?[\d\s()-]{7,}$/.test(text)) return `tel:${text.replace(/[^\d+]/g, '')}`;
  return null;
}

export function ContactLink({ text }: { text: string }) {
  const href = contactHref(text);
  return href ? (
    <a href={href} className="wrap-anywhere" data-testid="support-contact" {...(href.startsWith('http') ? { target: '_blank', rel: 'noopener' } : {})}>
      {text}
    </a>
  ) : (
    <b className="wrap-anywhere" data-testid="support-contact">
      {text}
    </b>
  );
}

/** «Поддержка: …» for the login page; nothing when the operator set no contact. */
export function SupportLine() {
  const text = useSupportContact();
  if (!text) return null;
  return (
    <p className="switch" data-testid="support-line">
      Поддержка: <ContactLink text={text} />
    </p>
  );
}
