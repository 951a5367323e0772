// The catalog of an E-commerce agent: a paged product list with add, edit, availability and delete, and
// the CSV import. Each action's error is shown next to it.
import { useId, useState } from 'react';
import { api } from '../app/api';
import { Pager, useCursorPages } from '../shared/Pager';
import { Button, ConfirmDialog, ErrorText, Loading } from '../shared/ui';
import { useAction, useQuery } from '../app/hooks';
import { formatPrice } from './price';
import { ProductForm, type Product, type ProductValues } from './ProductForm';
import { ProductImport } from './ProductImport';

const PAGE_SIZE = 20;

function ProductRow({
  agentId,
  product,
  onEdit,
  onDelete,
  onChanged,
}: {
  agentId: string;
  product: Product;
  onEdit(): void;
  onDelete(): void;
  onChanged(p: Product): void;
}) {
  const toggle = useAction(() => api.commerce.updateProduct.mutate({ agentId, productId: product.id, available: !product.available }));
  return (
    <tr data-product-id={product.id}>
      <td data-label="Товар">
        <div>
          <span className="product-title">{product.title}</span>
          {product.description ? <span className="hint product-description">{product.description}</span> : null}
        </div>
      </td>
      <td data-label="Цена" className="num" data-testid="product-price">
        {formatPrice(product.priceMinor, product.currency)}
      </td>
      <td data-label="Наличие">
        <span className={`badge ${product.available ? 'badge-ok' : 'badge-off'}`}>{product.available ? 'В наличии' : 'Нет в наличии'}</span>
        {product.stock !== null ? (
          <span className={`hint ${product.stock === 0 ? 'error' : ''}`} data-testid="product-stock">
            {product.stock === 0 ? 'остаток 0: клиенты не могут заказать' : `остаток ${product.stock} шт.`}
          </span>
        ) : null}
      </td>
      <td>
        <div className="row-actions">
          <Button variant="secondary" aria-label={`Изменить товар «${product.title}»`} onClick={onEdit}>
            Изменить
          </Button>
          <Button
            variant="secondary"
            pending={toggle.pending}
            pendingText="Сохраняем…"
            aria-label={product.available ? `Снять с продажи «${product.title}»` : `Вернуть в продажу «${product.title}»`}
            onClick={async () => {
              const updated = await toggle.run();
              if (updated) onChanged(updated);
            }}
          >
            {product.available ? 'Снять с продажи' : 'Вернуть в продажу'}
          </Button>
          <Button variant="danger" aria-label={`Удалить товар «${product.title}»`} onClick={onDelete}>
            Удалить
          </Button>
        </div>
        <ErrorText error={toggle.error} />
      </td>
    </tr>
  );
}

export function ShopCatalog({ agentId }: { agentId: string }) {
  const pages = useCursorPages();
  const list = useQuery(() => api.commerce.listProducts.query({ agentId, limit: PAGE_SIZE, cursor: pages.cursor }), [agentId, pages.cursor]);
  // Edits made on this page before the next reload of the list: an availability toggle shows at once.
  const [changed, setChanged] = useState<Record<string, Product>>({});
  const [editing, setEditing] = useState<Product | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Product | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const addButtonId = useId();

  const create = useAction((values: ProductValues) => api.commerce.createProduct.mutate({ agentId, ...values }));
  const update = useAction((id: string, values: ProductValues) => api.commerce.updateProduct.mutate({ agentId, productId: id, ...values }));
  const remove = useAction((id: string) => api.commerce.deleteProduct.mutate({ agentId, productId: id }));

  const reload = () => {
    setChanged({});
    list.reload();
  };

  const closeForm = () => {
    setEditing(null);
    create.fail(undefined);
    update.fail(undefined);
    document.getElementById(addButtonId)?.focus();
  };

  const onSubmit = async (values: ProductValues): Promise<boolean> => {
    if (editing === 'new') {
      const created = await create.run(values);
      if (!created) return false;
      setNotice(`Товар «${created.title}» добавлен`);
      reload();
      return true;
    }
    if (!editing) return false;
    const updated = await update.run(editing.id, values);
    if (!updated) return false;
    setChanged((c) => ({ ...c, [updated.id]: updated }));
    setNotice(`Товар «${updated.title}» сохранён`);
    closeForm();
    return true;
  };

  const onConfirmDelete = async () => {
    if (!deleting) return;
    const done = await remove.run(deleting.id);
    if (!done) return;
    setNotice(`Товар «${deleting.title}» удалён`);
    setDeleting(null);
    if (editing !== 'new' && editing?.id === deleting.id) setEditing(null);
    // The last product of a later page is gone: that page would be empty.
    if (pages.number > 1 && list.data?.products.length === 1) pages.back();
    else reload();
  };

  const products = list.data?.products.map((p) => changed[p.id] ?? p) ?? [];

  return (
    <section className="shop-part" aria-labelledby="shop-catalog-title" data-testid="shop-catalog">
      <div className="section-head">
        <h3 id="shop-catalog-title">Каталог</h3>
        <Button
          id={addButtonId}
          variant="secondary"
          aria-expanded={editing === 'new'}
          onClick={() => {
            setNotice(null);
            create.fail(undefined);
            setEditing('new');
          }}
        >
          Добавить товар
        </Button>
      </div>

      {editing ? (
        <ProductForm
          key={editing === 'new' ? 'new' : editing.id}
          product={editing === 'new' ? undefined : editing}
          pending={editing === 'new' ? create.pending : update.pending}
          error={editing === 'new' ? create.error : update.error}
          onSubmit={onSubmit}
          onCancel={closeForm}
        />
      ) : null}

      {notice ? (
        <p className="success" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorText error={list.error} />
      {list.loading ? <Loading text="Загружаем товары…" /> : null}
      {list.data && products.length === 0 ? (
        <p className="muted">{pages.number === 1 ? 'Товаров пока нет: добавьте первый или импортируйте CSV.' : 'На этой странице товаров нет.'}</p>
      ) : null}
      {products.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="products-table">
            <thead>
              <tr>
                <th scope="col">Товар</th>
                <th scope="col" className="num">
                  Цена
                </th>
                <th scope="col">Наличие</th>
                <th scope="col">
                  <span className="visually-hidden">Действия</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {products.map((product) => (
                <ProductRow
                  key={product.id}
                  agentId={agentId}
                  product={product}
                  onEdit={() => {
                    setNotice(null);
                    update.fail(undefined);
                    setEditing(product);
                  }}
                  onDelete={() => {
                    remove.fail(undefined);
                    setDeleting(product);
                  }}
                  onChanged={(p) => setChanged((c) => ({ ...c, [p.id]: p }))}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pages={pages} nextCursor={list.data?.nextCursor} loading={list.loading} label="Страницы каталога" />

      <ProductImport
        agentId={agentId}
        onImported={() => {
          if (pages.number > 1) pages.reset();
          else reload();
        }}
      />

      <ConfirmDialog
        open={deleting !== null}
        title="Удалить товар?"
        confirmText="Удалить"
        pending={remove.pending}
        error={remove.error}
        onConfirm={onConfirmDelete}
        onCancel={() => setDeleting(null)}
      >
        <p>Товар «{deleting?.title}» будет удалён из каталога. В уже оформленных заказах он останется.</p>
      </ConfirmDialog>
    </section>
  );
}
