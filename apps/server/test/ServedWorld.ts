/**
 * What the served world of the cross-process and webhook tests reads beside
 * the documented import example (a first draft, which carries neither): the
 * ethereum chain (`/chains/ethereum`) and a sample quantum snapshot with its
 * row (`/quantum-readiness`, `/chains/ethereum/quantum-readiness`).
 */
export const ethereumAndSnapshot = {
  chain: {
    entity_type: "chain",
    record: {
      id: "cc5752bc-4c32-46aa-92b8-fd64ee77bd48",
      name: "Ethereum",
      slug: "ethereum",
      status: "published",
      categories: ["l1"],
      chains: [],
      urls: { website: "https://ethereum.org" },
      external_ids: { coingecko: "ethereum" },
      description: null,
      is_active: true,
      is_private: false,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      chain_id: 1
    }
  },
  snapshot: {
    as_of: "2026-08-01T00:00:00Z",
    sample: true,
    rows: [
      {
        slug: "ethereum",
        name: "Ethereum",
        profile: "L1",
        qri: 25,
        band: 2,
        band_label: "Acknowledged",
        stage: 2,
        hybrid: "FAIL",
        danger: false,
        ci: 5
      }
    ]
  }
}
