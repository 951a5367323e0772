// The catalog of an E-commerce agent: a paged product list with add, edit, availability and delete, and
// the CSV import. Each action's error is shown next to it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useId, useState } from 'react';
import { Pager, useCursorPages } from '../shared/Pager';
import { Button, ConfirmDialog, ErrorText, Loading } from '../shared/ui';
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
  const trpc = useTRPC();
  const toggle = useMutation(trpc.commerce.updateProduct.mutationOptions());
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
            pending={toggle.isPending}
            pendingText="Сохраняем…"
            aria-label={product.available ? `Снять с продажи «${product.title}»` : `Вернуть в продажу «${product.title}»`}
            onClick={async () => {
              const updated = await answerOf(toggle.mutateAsync({ agentId, productId: product.id, available: !product.available }));
              if (updated) onChanged(updated);
            }}
          >
            {product.available ? 'Снять с продажи' : 'Вернуть в продажу'}
          </Button>
          <Button variant="danger" aria-label={`Удалить товар «${product.title}»`} onClick={onDelete}>
            Удалить
          </Button>
        </div>
        <ErrorText error={apiError(toggle.error)} />
      </td>
    </tr>
  );
}

export function ShopCatalog({ agentId }: { agentId: string }) {
  const pages = useCursorPages();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.commerce.listProducts.queryOptions({ agentId, limit: PAGE_SIZE, cursor: pages.cursor }));
  // Edits made on this page before the next reload of the list: an availability toggle shows at once.
  const [changed, setChanged] = useState<Record<string, Product>>({});
  const [editing, setEditing] = useState<Product | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Product | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const addButtonId = useId();

  const create = useMutation(trpc.commerce.createProduct.mutationOptions());
  const update = useMutation(trpc.commerce.updateProduct.mutationOptions());
  const remove = useMutation(trpc.commerce.deleteProduct.mutationOptions());

  const reload = () => {
    setChanged({});
    void queryClient.invalidateQueries({ queryKey: trpc.commerce.listProducts.pathKey() });
  };

  const closeForm = () => {
    setEditing(null);
    create.reset();
    update.reset();
    document.getElementById(addButtonId)?.focus();
  };

  const onSubmit = async (values: ProductValues): Promise<boolean> => {
    if (editing === 'new') {
      const created = await answerOf(create.mutateAsync({ agentId, ...values }));
      if (!created) return false;
      setNotice(`Товар «${created.title}» добавлен`);
      reload();
      return true;
    }
    if (!editing) return false;
    const updated = await answerOf(update.mutateAsync({ agentId, productId: editing.id, ...values }));
    if (!updated) return false;
    setChanged((c) => ({ ...c, [updated.id]: updated }));
    setNotice(`Товар «${updated.title}» сохранён`);
    closeForm();
    return true;
  };

  const onConfirmDelete = async () => {
    if (!deleting) return;
    const done = await answerOf(remove.mutateAsync({ agentId, productId: deleting.id }));
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
            create.reset();
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
          pending={editing === 'new' ? create.isPending : update.isPending}
          error={editing === 'new' ? apiError(create.error) : apiError(update.error)}
          onSubmit={onSubmit}
          onCancel={closeForm}
        />
      ) : null}

      {notice ? (
        <p className="success" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorText error={apiError(list.error)} />
      {list.isFetching ? <Loading text="Загружаем товары…" /> : null}
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
                    update.reset();
                    setEditing(product);
                  }}
                  onDelete={() => {
                    remove.reset();
                    setDeleting(product);
                  }}
                  onChanged={(p) => setChanged((c) => ({ ...c, [p.id]: p }))}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pages={pages} nextCursor={list.data?.nextCursor} loading={list.isFetching} label="Страницы каталога" />

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
        pending={remove.isPending}
        error={apiError(remove.error)}
        onConfirm={onConfirmDelete}
        onCancel={() => setDeleting(null)}
      >
        <p>Товар «{deleting?.title}» будет удалён из каталога. В уже оформленных заказах он останется.</p>
      </ConfirmDialog>
    </section>
  );
}
