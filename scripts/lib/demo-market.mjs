// The demo market (`npm run exchange -- seed-market`): a catalogue a wholesale eSIM seller could
// plausibly offer, published through the seller endpoints like any seller's. For each of 45
// popular destinations a package of every data size, one regional package per region and size,
// and per region the top-ups that fit all of them. Names are the catalogue's identity: seeding
// again updates what changed and publishes only what is missing.
import { digestClient } from "./digest-client.mjs";

/** Destinations by region: [country as /buyers/esim/countries names it, price tier (1 = a typical market)]. */
export const REGIONS = {
  Americas: [
    ["UNITED STATES", 1.1],
    ["CANADA", 1.4],
    ["MEXICO", 1.1],
    ["BRAZIL", 1.2],
    ["ARGENTINA", 1.3],
    ["CHILE", 1.2],
    ["COLOMBIA", 1.1],
    ["PERU", 1.2],
    ["COSTA RICA", 1.3],
    ["DOMINICAN REPUBLIC", 1.3],
  ],
  Europe: [
    ["UNITED KINGDOM", 0.8],
    ["FRANCE", 0.7],
    ["GERMANY", 0.7],
    ["SPAIN", 0.7],
    ["ITALY", 0.7],
    ["PORTUGAL", 0.7],
    ["NETHERLANDS", 0.7],
    ["GREECE", 0.8],
    ["SWITZERLAND", 1.3],
    ["TURKIYE", 0.9],
    ["POLAND", 0.7],
    ["AUSTRIA", 0.7],
  ],
  "Asia-Pacific": [
    ["JAPAN", 0.9],
    ["SOUTH KOREA", 1.0],
    ["CHINA", 1.3],
    ["HONG KONG", 0.9],
    ["SINGAPORE", 0.9],
    ["THAILAND", 0.7],
    ["VIETNAM", 0.7],
    ["INDONESIA", 0.8],
    ["MALAYSIA", 0.8],
    ["PHILIPPINES", 0.9],
    ["INDIA", 0.8],
    ["AUSTRALIA", 1.1],
    ["NEW ZEALAND", 1.2],
  ],
  "Middle East": [
    ["UNITED ARAB EMIRATES", 1.4],
    ["SAUDI ARABIA", 1.4],
    ["QATAR", 1.5],
    ["ISRAEL", 1.1],
    ["JORDAN", 1.4],
  ],
  Africa: [
    ["SOUTH AFRICA", 1.5],
    ["EGYPT", 1.3],
    ["MOROCCO", 1.2],
    ["KENYA", 1.6],
    ["NIGERIA", 1.8],
  ],
};

/** Sizes: [data_gb (-1 unlimited), validity days, price of a tier-1 market in USD]. */
const SIZES = [
  [0.5, 7, 1.2],
  [1, 7, 2.0],
  [5, 15, 6.5],
  [10, 30, 11.0],
  [20, 30, 18.0],
  [-1, 10, 24.0],
];
/** Regional packages: the cheaper half of the sizes, at the region's dearest tier. */
const REGIONAL_SIZES = SIZES.filter(([gb]) => gb >= 1);
/** Top-ups per region: [data_GB, validity days, tier-1 price]. */
const TOPUP_SIZES = [
  [1, 7, 2.2],
  [3, 15, 5.0],
  [10, 30, 12.0],
];

const usd = (n) => (Math.round(n * 100) / 100).toFixed(2);
const sizeName = (gb) => (gb === -1 ? "Unlimited" : `${gb} GB`);
const title = (country) =>
  country
    .toLowerCase()
    .replace(/\b[a-z]/g, (ch) => ch.toUpperCase())
    .replace(/^Turkiye$/, "Türkiye");

/** The whole catalogue: {packages: [publish fields...], topups: [publish fields...]}. */
export function demoCatalogue() {
  const packages = [];
  const topups = [];
  for (const [region, destinations] of Object.entries(REGIONS)) {
    for (const [country, tier] of destinations) {
      for (const [gb, days, price] of SIZES) {
        packages.push({
          name: `${title(country)} ${sizeName(gb)} ${days} days`,
          countries: country,
          data_gb: gb,
          validity_days: days,
          price: usd(price * tier),
          kind: "universal",
        });
      }
    }
    const countries = destinations.map(([c]) => c).join(",");
    const dearest = Math.max(...destinations.map(([, tier]) => tier));
    for (const [gb, days, price] of REGIONAL_SIZES) {
      packages.push({
        name: `${region} ${sizeName(gb)} ${days} days`,
        countries,
        data_gb: gb,
        validity_days: days,
        price: usd(price * dearest * 1.1),
        kind: "regional",
      });
    }
    for (const [gb, days, price] of TOPUP_SIZES) {
      topups.push({
        name: `${region} top-up +${gb} GB ${days} days`,
        supported_countries: countries,
        data_GB: gb,
        validity_days: days,
        activation_policy: "immediate",
        price: usd(price * dearest),
      });
    }
  }
  return { packages, topups };
}

const same = (row, want, fields) =>
  fields.every(([wantKey, rowKey]) => {
    const a = row[rowKey];
    const b = want[wantKey];
    if (Array.isArray(a)) return [...a].sort().join(",") === String(b).split(",").sort().join(",");
    return String(a) === String(b) || Number(a) === Number(b);
  });

async function listAll(client, path, key) {
  const rows = [];
  for (let off = 0; ; off += 1000) {
    const res = await client.post(`${path}/list`, { pager: 1000, off });
    if (res.status !== 200) throw new Error(`${path}/list: ${res.status} ${res.body.message}`);
    rows.push(...res.body[key]);
    if (rows.length >= res.body.total || res.body[key].length === 0) return rows;
  }
}

/** Runs `work` over `items` with `parallel` Digest clients, each one request at a time. */
async function inParallel(items, clients, work) {
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < items.length) await work(client, items[next++]);
    }),
  );
}

/**
 * Publishes the catalogue as `username` (seller key `key`) on the exchange at `base`: missing
 * entries published, changed ones updated, the rest left alone; with `reset`, the seller's other
 * active packages and top-ups (and duplicates of the catalogue's names) are withdrawn. Returns counts per kind.
 */
export async function seedMarket(base, username, key, { reset = false, parallel = 4 } = {}) {
  const clients = Array.from({ length: parallel }, () => digestClient(base, username, key));
  const catalogue = demoCatalogue();
  const kinds = [
    {
      kind: "packages",
      path: "/sellers/esim/packages",
      list: "packages",
      id: "i_esim_package",
      wanted: catalogue.packages,
      fields: [
        ["countries", "countries"],
        ["data_gb", "data_gb"],
        ["validity_days", "validity_days"],
        ["price", "price"],
        ["kind", "kind"],
      ],
    },
    {
      kind: "topups",
      path: "/sellers/esim/topups",
      list: "topups",
      id: "package_type_id",
      wanted: catalogue.topups,
      fields: [
        ["supported_countries", "supported_countries"],
        ["data_GB", "data_GB"],
        ["validity_days", "validity_days"],
        ["price", "price"],
        ["activation_policy", "activation_policy"],
      ],
    },
  ];
  const summary = { destinations: Object.values(REGIONS).flat().length };
  for (const k of kinds) {
    const existing = (await listAll(clients[0], k.path, k.list)).filter((row) => row.active);
    const byName = new Map(existing.map((row) => [row.name, row]));
    const counts = { published: 0, updated: 0, unchanged: 0, withdrawn: 0 };
    await inParallel(k.wanted, clients, async (client, want) => {
      const row = byName.get(want.name);
      if (row && same(row, want, k.fields)) return void counts.unchanged++;
      const res = row
        ? await client.post(`${k.path}/update`, { ...want, [k.id]: row[k.id] })
        : await client.post(`${k.path}/publish`, want);
      if (res.status !== 200) throw new Error(`${want.name}: ${res.status} ${res.body.message}`);
      counts[row ? "updated" : "published"]++;
    });
    if (reset) {
      const names = new Set(k.wanted.map((w) => w.name));
      const stray = existing.filter((row) => !names.has(row.name) || byName.get(row.name) !== row);
      await inParallel(stray, clients, async (client, row) => {
        const res = await client.post(`${k.path}/withdraw`, { [k.id]: row[k.id] });
        if (res.status !== 200) throw new Error(`withdraw ${row.name}: ${res.status} ${res.body.message}`);
        counts.withdrawn++;
      });
    }
    summary[k.kind] = { total: k.wanted.length, ...counts };
  }
  return summary;
}
