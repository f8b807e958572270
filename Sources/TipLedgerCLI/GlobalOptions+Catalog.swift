// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension GlobalOptions {
    /// The product catalog from `--catalog` / `TIPLEDGER_CATALOG`, or nil when none is configured.
    /// A malformed file is a configuration error naming the file (exit status 64).
    func loadCatalog() throws -> StoreKitCatalog? {
        guard let catalogPath else { return nil }
        let bytes = try FileInput.read(catalogPath, limit: 8 << 20)
        do {
            return try StoreKitCatalog(json: bytes)
        } catch {
            throw CLIError(.usage, "\(catalogPath): \(error)", hint: "--catalog takes an Xcode .storekit file")
        }
    }
}
