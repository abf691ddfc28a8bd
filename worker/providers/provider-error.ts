/** An outside service failed. `retryable`: a later attempt may succeed (a 5xx, 429, a timeout). */
export class ProviderError extends Error {
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = "ProviderError";
    this.retryable = retryable;
  }
}

/** Turns a provider's HTTP answer into a ProviderError naming the service. */
export async function providerFailure(service: string, res: Response): Promise<ProviderError> {
  const body = (await res.text().catch(() => "")).slice(0, 200);
  return new ProviderError(`${service} answered ${res.status}${body ? `: ${body}` : ""}`, res.status >= 500 || res.status === 429);
}
