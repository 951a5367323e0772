// The invitation link's token (<base>/app#/invite/<token>): kept in this tab's sessionStorage from the
// moment the link is opened, so that a sign-in or a registration on the way leads back to the invitation.
// It stays in the fragment of the link (never sent to the server in an address) and leaves the address bar
// as soon as it is read.
const STORAGE_KEY = 'conduit.invite';
const INVITE_HASH = /^#\/invite\/([^/?#\s]+)$/;

/** Reads an invitation from the address, if it holds one, and returns the one waiting in this tab. */
export function captureInvite(): string | null {
  const match = INVITE_HASH.exec(window.location.hash);
  if (match) {
    sessionStorage.setItem(STORAGE_KEY, match[1]!);
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem(STORAGE_KEY);
}

export function pendingInvite(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function clearPendingInvite(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
