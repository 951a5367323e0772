// «Аккаунт» (/app/account): the account's own settings, one section per concern.
import { AlertsSection } from './Alerts';

export function AccountPage() {
  return (
    <>
      <AlertsSection />
    </>
  );
}
