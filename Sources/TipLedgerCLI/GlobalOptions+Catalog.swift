// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension GlobalOptions {
    /// The product catalog from `--catalog` / `TIPLEDGER_CATALOG`, or nil when none is configured.
    /// A malformed file is a configuration error naming the file (exit status 64). A display name
    /// that two products share is said on `terminal`'s standard error: outputs that show names
    /// could not tell those products apart by name alone.
    func loadCatalog(warningsTo terminal: Terminal) throws -> StoreKitCatalog? {
        guard let catalogPath else { return nil }
        let bytes = try FileInput.read(catalogPath, limit: 8 << 20)
        let catalog: StoreKitCatalog
        do {
            catalog = try StoreKitCatalog(json: bytes)
        } catch {
            throw CLIError(.usage, "\(catalogPath): \(error)", hint: "--catalog takes an Xcode .storekit file")
        }
        for (name, ids) in catalog.sharedDisplayNames {
            terminal.errorLine(
                "warning: \(catalogPath): \(ids.count) products are named \"\(name)\" (\(ids.joined(separator: ", "))); "
                    + "tell them apart by their ids")
        }
        return catalog
    }
}
