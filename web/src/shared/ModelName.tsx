// A model id as people read it: «owner/model» kept whole, and when a narrow column (a phone's card) must
// break it, only after its «/» — never mid-name («openai/ … text-embed-ding»). Each part is a nowrap span;
// the only break opportunity is the <wbr> between them.
import { Fragment } from 'react';

export function ModelName({ model, className }: { model: string; className?: string }) {
  const parts = model.split('/');
  return (
    <span className={`model-name${className ? ` ${className}` : ''}`} data-model={model}>
      {parts.map((part, i) => {
        const last = i === parts.length - 1;
        return (
          <Fragment key={i}>
            <span>{last ? part : `${part}/`}</span>
            {last ? null : <wbr />}
          </Fragment>
        );
      })}
    </span>
  );
}
