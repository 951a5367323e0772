// A session's device as the owner reads it in the list: the browser and the system in plain words from the
// User-Agent header («Chrome, Windows»). Only the families people recognise: a version would make every
// browser update look like a new device.

const browsers: Array<[RegExp, string]> = [
  [/YaBrowser\//, 'Яндекс Браузер'],
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];

const systems: Array<[RegExp, string]> = [
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

const firstMatch = (value: string, table: Array<[RegExp, string]>) => table.find(([pattern]) => pattern.test(value))?.[1] ?? null;

export function describeDevice(userAgent: string | null | undefined): string {
  const value = userAgent ?? '';
  const browser = firstMatch(value, browsers);
  const system = firstMatch(value, systems);
  if (browser && system) return `${browser}, ${system}`;
  if (browser) return browser;
  if (system) return `Браузер, ${system}`;
  return value.trim() === '' ? 'Неизвестное устройство' : 'Программа или скрипт';
}
