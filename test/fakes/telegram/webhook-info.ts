// getWebhookInfo's report of the last failed webhook delivery, as Telegram words it.

export interface WebhookLastError {
  /** Unix time, seconds. */
  date: number;
  message: string;
}

/** Telegram's wording for a delivery that failed with this HTTP status (0: no connection). */
export function deliveryError(status: number, now = Date.now()): WebhookLastError {
  const message =
    status === 0 ? 'Connection refused' : `Wrong response from the webhook: ${status} ${status === 404 ? 'Not Found' : 'Error'}`;
  return { date: Math.floor(now / 1000), message };
}

export function webhookErrorInfo(error: WebhookLastError | undefined): { last_error_date?: number; last_error_message?: string } {
  return error ? { last_error_date: error.date, last_error_message: error.message } : {};
}
