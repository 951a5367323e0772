// The form of one catalog product, for adding and for editing. The price is typed in roubles with
// kopecks and sent as exact minor units; everything else is checked with the API's own schema.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { productInput } from '@server/commerce/catalog-input';
import type { ApiError, Outputs } from '../app/api';
import { Button, ErrorText, Field } from '../shared/ui';
import { minorToInput, parsePrice } from './price';
import { check, type FieldErrors } from '../shared/validate';

export type Product = Outputs['commerce']['getProduct'];
export type ProductValues = {
  title: string;
  description: string;
  priceMinor: number;
  currency: string;
  available: boolean;
  attributes: Record<string, string>;
  stock: number | null;
};

/** «размер: M» a line, as the owner types them; a line without a colon is a mistake shown under the field. */
function parseAttributes(text: string): { ok: true; value: Record<string, string> } | { ok: false; message: string } {
  const value: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const at = line.indexOf(':');
    if (at <= 0) return { ok: false, message: `строка «${line.trim().slice(0, 40)}»: напишите «название: значение»` };
    value[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { ok: true, value };
}

const attributesText = (attributes: Record<string, string> | undefined) =>
  Object.entries(attributes ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');

/** Empty: stock not tracked. */
function parseStock(text: string): { ok: true; value: number | null } | { ok: false; message: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: null };
  return /^\d{1,9}$/.test(trimmed) ? { ok: true, value: Number(trimmed) } : { ok: false, message: 'целое число штук или пусто, если остаток не учитывается' };
}

export function ProductForm({
  product,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  /** Absent: a new product. */
  product?: Product | undefined;
  pending: boolean;
  error: ApiError | undefined;
  /** Resolves true when saved: a new product's form is then cleared. */
  onSubmit(values: ProductValues): Promise<boolean>;
  onCancel(): void;
}) {
  const [title, setTitle] = useState(product?.title ?? '');
  const [description, setDescription] = useState(product?.description ?? '');
  const [price, setPrice] = useState(product ? minorToInput(product.priceMinor) : '');
  const [currency, setCurrency] = useState(product?.currency ?? 'RUB');
  const [available, setAvailable] = useState(product?.available ?? true);
  const [attributes, setAttributes] = useState(attributesText(product?.attributes));
  const [stock, setStock] = useState(product?.stock === null || product?.stock === undefined ? '' : String(product.stock));
  const [errors, setErrors] = useState<FieldErrors>({});
  const heading = useRef<HTMLHeadingElement>(null);
  const headingId = useId();

  // Opening the form moves the keyboard user to it; another product opens a new form (the catalog keys it by id).
  useEffect(() => heading.current?.focus(), []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsedPrice = parsePrice(price);
    const parsedAttributes = parseAttributes(attributes);
    const parsedStock = parseStock(stock);
    const checked = check(productInput, {
      title,
      description,
      priceMinor: parsedPrice.ok ? parsedPrice.minor : undefined,
      currency,
      available,
      attributes: parsedAttributes.ok ? parsedAttributes.value : {},
      stock: parsedStock.ok ? parsedStock.value : null,
    });
    const found: FieldErrors = checked.ok ? {} : { ...checked.errors };
    if (!parsedPrice.ok) found.priceMinor = parsedPrice.message;
    if (!parsedAttributes.ok) found.attributes = parsedAttributes.message;
    if (!parsedStock.ok) found.stock = parsedStock.message;
    setErrors(found);
    if (!checked.ok || !parsedPrice.ok || !parsedAttributes.ok || !parsedStock.ok) return;
    if ((await onSubmit(checked.data)) && !product) {
      setTitle('');
      setDescription('');
      setPrice('');
      setAvailable(true);
      setAttributes('');
      setStock('');
    }
  };

  return (
    <form className="product-form" onSubmit={submit} noValidate aria-labelledby={headingId} data-testid="product-form">
      <h4 id={headingId} ref={heading} tabIndex={-1}>
        {product ? `Изменить товар «${product.title}»` : 'Новый товар'}
      </h4>
      <div className="grid">
        <Field label="Название товара" error={errors.title}>
          {(props) => <input {...props} name="title" maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />}
        </Field>
        <Field label="Цена" hint="В рублях с копейками, например 1 499,90" error={errors.priceMinor}>
          {(props) => <input {...props} name="price" inputMode="decimal" autoComplete="off" value={price} onChange={(e) => setPrice(e.target.value)} />}
        </Field>
        <Field label="Валюта" hint="Код ISO 4217, например RUB" error={errors.currency}>
          {(props) => <input {...props} name="currency" maxLength={3} autoComplete="off" value={currency} onChange={(e) => setCurrency(e.target.value)} />}
        </Field>
      </div>
      <Field label="Описание" error={errors.description}>
        {(props) => <textarea {...props} name="description" rows={3} maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <div className="grid">
        <Field label="Характеристики" hint="По одной в строке: «размер: M», «цвет: красный». Ассистент ищет и по ним" error={errors.attributes}>
          {(props) => <textarea {...props} name="attributes" rows={3} value={attributes} onChange={(e) => setAttributes(e.target.value)} />}
        </Field>
        <Field label="Остаток, шт." hint="Пусто — не учитывается; 0 — нет в наличии. Оплаченный заказ уменьшает остаток" error={errors.stock}>
          {(props) => <input {...props} name="stock" inputMode="numeric" autoComplete="off" value={stock} onChange={(e) => setStock(e.target.value)} />}
        </Field>
      </div>
      <label className="checkbox">
        <input type="checkbox" name="available" checked={available} onChange={(e) => setAvailable(e.target.checked)} />В наличии
      </label>
      <div className="actions">
        <Button type="submit" pending={pending} pendingText="Сохраняем…">
          {product ? 'Сохранить товар' : 'Добавить товар'}
        </Button>
        <Button variant="secondary" onClick={onCancel} disabled={pending}>
          Отмена
        </Button>
      </div>
      <ErrorText error={error} />
    </form>
  );
}
