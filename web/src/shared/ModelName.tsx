// A model id as people read it: «owner/model» kept whole, and when a narrow column (a phone's card) must
// break it, only after its «/» — never mid-name («openai/ … text-embed-ding»).
export function ModelName({ model, className }: { model: string; className?: string }) {
  const parts = model.split('/');
  return (
    <span className={`model-name${className ? ` ${className}` : ''}`} data-model={model}>
      {parts.map((part, i) => (
        <span key={i}>
          {part}
          {i < parts.length - 1 ? '/' : null}
          {i < parts.length - 1 ? <wbr /> : null}
        </span>
      ))}
    </span>
  );
}
