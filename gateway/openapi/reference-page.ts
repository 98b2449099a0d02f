type Json = Record<string, unknown>;

const escape = (s: unknown) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  const ref = schema?.['$ref'];
  if (typeof ref !== 'string') return schema;
  const name = ref.split('/').pop()!;
  return ((doc['components'] as Json)['schemas'] as Json)[name] as Json;
}

function typeLabel(doc: Json, schema: Json | undefined): string {
  const s = resolve(doc, schema);
  if (!s) return '';
  if (typeof schema?.['$ref'] === 'string') return String(schema['$ref']).split('/').pop()!;
  if (Array.isArray(s['enum'])) return (s['enum'] as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  if (s['const'] !== undefined) return JSON.stringify(s['const']);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key])) return (s[key] as Json[]).map((x) => typeLabel(doc, x)).join(' | ');
  }
  if (s['type'] === 'array') return `${typeLabel(doc, s['items'] as Json)}[]`;
  return String(s['type'] ?? 'any');
}

function fieldTable(doc: Json, schema: Json | undefined): string {
  const s = resolve(doc, schema);
  const props = s?.['properties'] as Record<string, Json> | undefined;
  if (!props) return `<p><code>${escape(typeLabel(doc, schema))}</code></p>`;
  const required = new Set((s?.['required'] as string[] | undefined) ?? []);
  const rows = Object.entries(props).map(([name, prop]) => {
    const p = resolve(doc, prop) ?? {};
    const constraints = ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'format']
      .filter((k) => p[k] !== undefined)
      .map((k) => `${k} ${p[k]}`)
      .join(', ');
    return `<tr><td><code>${escape(name)}</code></td><td><code>${escape(typeLabel(doc, prop))}</code></td><td>${
      required.has(name) ? 'yes' : ''
    }</td><td>${p['default'] !== undefined ? `<code>${escape(JSON.stringify(p['default']))}</code>` : ''}</td><td>${escape(
      p['description'] ?? '',
    )}${constraints ? ` <small>(${escape(constraints)})</small>` : ''}</td></tr>`;
  });
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Default</th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The section deprecated routes link to (their `Link: rel="sunset"` header points here). */
function deprecatedSection(items: string[]): string {
  if (items.length === 0) return '';
  return `<section id="deprecated-routes"><h2>Deprecated routes</h2>
<p>These routes still answer, with <code>Deprecation</code>, <code>Sunset</code> and <code>Link</code> headers and a
<code>DEPRECATED_ENDPOINT</code> warning, until their sunset date; each says what to call instead.</p><ul>${items.join('')}</ul></section>`;
}

/** A readable, self-contained API reference rendered from the OpenAPI document. */
export function renderReferencePage(doc: Json): string {
  const info = doc['info'] as Json;
  const sections: string[] = [];
  const nav: string[] = [];
  const deprecated: string[] = [];
  for (const [path, methods] of Object.entries(doc['paths'] as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const anchor = String(op['operationId'] ?? `${method}-${path}`);
      if (op['deprecated'] === true) deprecated.push(`<li><a href="#${escape(anchor)}"><code>${method.toUpperCase()} ${escape(path)}</code></a></li>`);
      nav.push(`<li><a href="#${escape(anchor)}"><b>${method.toUpperCase()}</b> ${escape(path)}</a></li>`);
      const params = (op['parameters'] as Json[] | undefined) ?? [];
      const body = ((op['requestBody'] as Json | undefined)?.['content'] as Json | undefined)?.['application/json'] as Json | undefined;
      const responses = Object.entries(op['responses'] as Record<string, Json>)
        .map(([status, r]) => {
          const schema = ((r['content'] as Json | undefined)?.['application/json'] as Json | undefined)?.['schema'] as Json | undefined;
          return `<details><summary><code>${status}</code> ${escape(r['description'])}</summary>${schema ? fieldTable(doc, schema) : ''}</details>`;
        })
        .join('');
      sections.push(`<section id="${escape(anchor)}">
<h2><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h2>
<p><b>${escape(op['summary'])}</b>${op['security'] ? ' &middot; needs <code>X-API-Key</code>' : ' &middot; no authentication'}</p>
${op['description'] ? `<p>${escape(op['description'])}</p>` : ''}
${params.length ? `<h3>Parameters</h3><ul>${params.map((p) => `<li><code>${escape(p['name'])}</code> (${escape(p['in'])})</li>`).join('')}</ul>` : ''}
${body ? `<h3>Request body</h3>${fieldTable(doc, body['schema'] as Json)}` : ''}
<h3>Responses</h3>${responses}
</section>`);
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(info['title'])} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;color:#1d2433}
nav{width:300px;padding:1rem;border-right:1px solid #ddd;height:100vh;overflow:auto;position:sticky;top:0;box-sizing:border-box}
nav ul{list-style:none;padding:0}nav a{text-decoration:none;color:inherit;font-size:13px}
main{padding:1rem 2rem;max-width:1000px}section{border-bottom:1px solid #eee;padding-bottom:1rem}
table{border-collapse:collapse;width:100%;font-size:13px}td,th{border:1px solid #e3e3e3;padding:4px 6px;text-align:left;vertical-align:top}
.m{display:inline-block;padding:0 6px;border-radius:4px;color:#fff;font-size:13px}.get{background:#2b7a4b}.post{background:#2156a5}.delete{background:#a52121}
summary{cursor:pointer;margin:4px 0}
</style></head><body>
<nav><h1 style="font-size:18px">${escape(info['title'])} ${escape(info['version'])}</h1><p><a href="/api/v1/openapi.json">openapi.json</a></p><ul>${nav.join('')}</ul></nav>
<main><p>${escape(info['description'])}</p>${deprecatedSection(deprecated)}${sections.join('\n')}</main></body></html>`;
}
