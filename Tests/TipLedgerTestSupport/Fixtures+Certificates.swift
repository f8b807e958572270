// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation
public import TipLedgerCrypto

extension Fixtures {
    /// The bytes of a file at `relativePath` from the top of the source tree (e.g. `keys/...`).
    public static func projectBytes(_ relativePath: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: "\(projectDirectory)/\(relativePath)") else {
            throw FixtureError(path: relativePath)
        }
        return [UInt8](data)
    }

    /// The one certificate in a fixture file, DER or PEM (text before the PEM block is skipped).
    public static func certificate(_ relativePath: String) throws -> Certificate {
        let certificates = try Certificate.parseAll(fileContents: try bytes(relativePath))
        guard certificates.count == 1 else { throw FixtureError(path: relativePath) }
        return certificates[0]
    }

    /// A certificate from Apple's library vectors, by its path under `apple-library/`.
    public static func appleLibraryCertificate(_ path: String) throws -> Certificate {
        try certificate("apple-library/\(path)")
    }
}
