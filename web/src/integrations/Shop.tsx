// The shop of an E-commerce agent: how clients pay, how orders are delivered, what the agent sells, and the orders it took.
import { ShopCatalog } from './ShopCatalog';
import { ShopDelivery } from './ShopDelivery';
import { ShopOrders } from './ShopOrders';
import { ShopSettings } from './ShopSettings';

export function Shop({ agentId }: { agentId: string }) {
  return (
    <section className="card shop" aria-labelledby="shop-title" data-testid="shop">
      <h2 id="shop-title">Магазин</h2>
      <ShopSettings agentId={agentId} />
      <ShopDelivery agentId={agentId} />
      <ShopCatalog agentId={agentId} />
      <ShopOrders agentId={agentId} />
    </section>
  );
}
