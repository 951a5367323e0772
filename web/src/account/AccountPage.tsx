// «Аккаунт» (/app/account): the signed-in user's own settings, one section per concern.
import { AlertsSection } from './Alerts';
import { SecuritySection } from './Security';

export function AccountPage() {
  return (
    <>
      <h1>Аккаунт</h1>
      <SecuritySection />
      <AlertsSection />
    </>
  );
}
