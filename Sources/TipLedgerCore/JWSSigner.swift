// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCrypto

/// Signs compact JWS the way the App Store does (ES256, raw `R‖S`, `x5c` chain in the header):
/// for `tipledger testkit` and for tests, never with a test key for anything a real client
/// trusts. With an empty chain and a header of the caller's own, it also signs the App Store
/// Server API's bearer tokens with the operator's key.
public struct JWSSigner: Sendable {
    public let key: PrivateKey
    public let chain: [Certificate]

    public init(key: PrivateKey, chain: [Certificate]) {
        self.key = key
        self.chain = chain
    }

    /// Signs with the leaf of `pki`, putting leaf, intermediate and root in `x5c`.
    public init(pki: TestPKI) {
        self.init(key: pki.leafKey, chain: pki.chain)
    }

    /// The protected header App Store tokens carry: `{"alg":"ES256","x5c":[...]}`.
    var standardHeader: [UInt8] {
        var writer = JSONWriter()
        writer.object { header in
            header.field("alg", "ES256")
            header.stringArray("x5c", chain.map { Base64.encode($0.derEncoded, alphabet: .standard) })
        }
        return writer.bytes
    }

    /// A compact JWS of `payload` (JSON bytes) under `header` (JSON bytes, the standard one by
    /// default).
    public func sign(payload: [UInt8], header: [UInt8]? = nil) throws(CryptoError) -> String {
        let signingInput =
            Base64.encode(header ?? standardHeader, alphabet: .url) + "." + Base64.encode(payload, alphabet: .url)
        let signature = try key.signES256(Array(signingInput.utf8))
        return signingInput + "." + Base64.encode(signature, alphabet: .url)
    }
}
