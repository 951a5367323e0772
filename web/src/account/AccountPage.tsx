// «Аккаунт»: the signed-in user's own settings, one section per concern.
import { SecuritySection } from './Security';

export function AccountPage() {
  return (
    <>
      <h1>Аккаунт</h1>
      <SecuritySection />
    </>
  );
}
