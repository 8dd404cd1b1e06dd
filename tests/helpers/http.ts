export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

/**
 * Real HTTP against a started server; JSON bodies are parsed, anything else is returned as text.
 * Given the server rather than its address, reads its `url` at each request: a suite's server
 * (`serverPerSuite`) starts after the client is made.
 */
export function client(server: string | { url: string }) {
  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Token ${options.token}`;
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(`${typeof server === 'string' ? server : server.url}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return {
      status: response.status,
      headers: response.headers,
      body: (type.includes('json') && text ? JSON.parse(text) : text) as T,
    };
  }
  return {
    request,
    get: <T = any>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
    post: <T = any>(path: string, options?: RequestOptions) => request<T>('POST', path, options),
    patch: <T = any>(path: string, options?: RequestOptions) => request<T>('PATCH', path, options),
    put: <T = any>(path: string, options?: RequestOptions) => request<T>('PUT', path, options),
    delete: <T = any>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
  };
}

export type Client = ReturnType<typeof client>;
