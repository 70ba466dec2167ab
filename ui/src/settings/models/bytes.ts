/** Bytes as MB or GB, one decimal (a model file's size, a download's progress). */
export function bytes(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : `${(n / 1e6).toFixed(1)} MB`;
}
