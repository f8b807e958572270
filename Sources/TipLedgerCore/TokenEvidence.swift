// SPDX-License-Identifier: GPL-3.0-or-later

/// A verified token as the ledger keeps it: its exact text, with the digests the verifier
/// worked out while reading it (`UnverifiedJWS`), so the ledger neither hashes nor splits it
/// again (see docs/ledger.md, "What it holds").
public struct TokenEvidence: Sendable, Equatable {
    /// The signed JWS exactly as received: re-verifiable offline.
    public let token: String
    /// SHA-256 of `token`, the key the ledger stores it under.
    public let digest: [UInt8]
    /// Length in bytes of the header part at the start of `token`; the body follows the `.`
    /// after it.
    let headerByteCount: Int
    /// SHA-256 of the header part: every token of one signing chain shares the header, which
    /// the ledger stores once under this digest.
    public let headerDigest: [UInt8]

    /// The header part, as received.
    public var header: Substring { token[..<headerEnd] }

    /// What follows the header and its `.`: the payload and signature parts, as received.
    public var body: Substring { token[token.utf8.index(after: headerEnd)...] }

    /// Where the header ends: at the first `.`, an ASCII character, so a character boundary.
    private var headerEnd: String.Index { token.utf8.index(token.utf8.startIndex, offsetBy: headerByteCount) }
}
