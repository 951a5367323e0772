// The first chat completion with a key, ready to paste: one text per client, so the overview's first steps and
// the keys screen's once-shown key give the same call.

const MODEL = 'openai/gpt-4o-mini';

export const curlSnippet = (baseUrl: string, apiKey: string) =>
  `curl ${baseUrl}/chat/completions \\\n` +
  `  -H "Authorization: Bearer ${apiKey}" \\\n` +
  `  -H "Content-Type: application/json" \\\n` +
  `  -d '{"model": "${MODEL}", "messages": [{"role": "user", "content": "Привет"}]}'`;

export const pythonSnippet = (baseUrl: string, apiKey: string) =>
  `from openai import OpenAI\n\n` +
  `client = OpenAI(base_url="${baseUrl}", api_key="${apiKey}")\n` +
  `answer = client.chat.completions.create(\n` +
  `    model="${MODEL}",\n` +
  `    messages=[{"role": "user", "content": "Привет"}],\n` +
  `)\n` +
  `print(answer.choices[0].message.content)`;

export const nodeSnippet = (baseUrl: string, apiKey: string) =>
  `import OpenAI from 'openai';\n\n` +
  `const client = new OpenAI({ baseURL: '${baseUrl}', apiKey: '${apiKey}' });\n` +
  `const answer = await client.chat.completions.create({\n` +
  `  model: '${MODEL}',\n` +
  `  messages: [{ role: 'user', content: 'Привет' }],\n` +
  `});\n` +
  `console.log(answer.choices[0].message.content);`;
