// The example's stand-in for a weather service: a few cities with fixed numbers, so that the
// bot runs anywhere (no network, no API key). A real bot would call its service here, passing the
// tool's `ctx.signal` to fetch() so that /stop and the tool's timeout cancel the request.
export interface Forecast {
  city: string;
  celsius: number;
  sky: string;
}

const FORECASTS: Record<string, Forecast> = {
  berlin: { city: 'Berlin', celsius: 4, sky: 'overcast' },
  lisbon: { city: 'Lisbon', celsius: 17, sky: 'sunny' },
  oslo: { city: 'Oslo', celsius: -3, sky: 'snow' },
  shanghai: { city: 'Shanghai', celsius: 12, sky: 'light rain' },
};

export function forecastFor(city: string): Forecast | undefined {
  return FORECASTS[city.trim().toLowerCase()];
}

export function describeForecast(forecast: Forecast): string {
  return `${forecast.city}: ${forecast.celsius} °C, ${forecast.sky}`;
}
