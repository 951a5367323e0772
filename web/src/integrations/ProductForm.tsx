// The form of one catalog product, for adding and for editing. The price is typed in roubles with
// kopecks and sent as exact minor units; everything else is checked with the API's own schema.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { productInput } from '../../../src/commerce/catalog-input';
import type { ApiError, Outputs } from '../api';
import { Button, ErrorText, Field } from '../components/ui';
import { minorToInput, parsePrice } from '../price';
import { check, type FieldErrors } from '../validate';

export type Product = Outputs['commerce']['getProduct'];
export type ProductValues = { title: string; description: string; priceMinor: number; currency: string; available: boolean };

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
  const [errors, setErrors] = useState<FieldErrors>({});
  const heading = useRef<HTMLHeadingElement>(null);
  const headingId = useId();

  // Opening the form (or switching to another product) moves the keyboard user to it.
  useEffect(() => heading.current?.focus(), [product?.id]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsedPrice = parsePrice(price);
    const checked = check(productInput, { title, description, priceMinor: parsedPrice.ok ? parsedPrice.minor : undefined, currency, available });
    const found: FieldErrors = checked.ok ? {} : { ...checked.errors };
    if (!parsedPrice.ok) found.priceMinor = parsedPrice.message;
    setErrors(found);
    if (!checked.ok || !parsedPrice.ok) return;
    if ((await onSubmit(checked.data)) && !product) {
      setTitle('');
      setDescription('');
      setPrice('');
      setAvailable(true);
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
